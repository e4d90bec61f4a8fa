import { describe, expect, it } from 'vitest';

import { quoted, showControls } from '../../../src-main/core/model/user-text.js';
import { validateDelivery } from '../../../src-main/core/model/validate.js';

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

describe('quoted()', () => {
  it('quotes user text with its control characters shown, never as themselves', () => {
    expect(quoted('Aurora\u0000Vale')).toBe("'Aurora\\u0000Vale'");
    expect(showControls('a\tb\u001b[31m\u0085')).toBe('a\\u0009b\\u001b[31m\\u0085');
    expect(quoted('Café & “Co”')).toBe("'Café & “Co”'");
  });

  it('keeps a NUL of a tag value out of every validation message', () => {
    const manual = { kind: 'manual' as const };
    const findings = validateDelivery([
      {
        file: 'a.mp3',
        primaryMedia: { value: 'a.mp3', source: manual },
        title: { value: 'A', source: manual },
        isrc: { value: 'GB\u0000ABC2600001', source: manual },
        outerId: { value: 'X\u0000', source: manual },
        artists: { value: [{ name: 'Mara Quinn\u0000feat. Ola', role: 'Main' }], source: manual },
      },
      {
        file: 'b.mp3',
        primaryMedia: { value: 'b.mp3', source: manual },
        title: { value: 'B', source: manual },
        outerId: { value: 'X\u0000', source: manual },
      },
    ]);
    const messages = findings.flat().map((f) => f.message);
    expect(messages.some((m) => m.includes("ISRC 'GB\\u0000ABC2600001'"))).toBe(true);
    expect(messages.some((m) => m.includes("outer_id 'X\\u0000'"))).toBe(true);
    for (const message of messages) expect(message).not.toMatch(CONTROL);
  });
});
