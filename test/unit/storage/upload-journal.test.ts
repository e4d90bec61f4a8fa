import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import {
  journalDir,
  type JournalEntry,
  journalFile,
  JournalWriter,
  readJournal,
  removeJournal,
} from '../../../src-main/core/storage/upload-journal.js';

const entry = (key: string): JournalEntry => ({
  version: 1,
  bucket: 'b',
  key,
  localPath: '/music/a.wav',
  size: 100,
  mtimeMs: 1,
  state: 'uploading',
  uploadId: 'u1',
  partSize: 10,
  parts: [],
  updatedAt: '',
});

describe('upload journal', () => {
  it('keeps one short, safe file per bucket and key', () => {
    const a = journalFile('/d', 'b', 'delivery/audio/x/../y.wav');
    expect(a).toMatch(/^\/d\/journal\/[0-9a-f]{40}\.json$/);
    expect(journalFile('/d', 'other', 'delivery/audio/x/../y.wav')).not.toBe(a);
  });

  it('coalesces concurrent commits and leaves no temp files', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'courier-journal-'));
    const e = entry('delivery/audio/f/a.wav');
    const writer = new JournalWriter(dataDir, e);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => {
        e.parts.push({ partNumber: i + 1, etag: `e${i}`, md5: 'm', size: 10 });
        return writer.commit();
      }),
    );
    const back = await readJournal(dataDir, 'b', e.key);
    expect(back?.parts).toHaveLength(20);
    expect(await readdir(journalDir(dataDir))).toHaveLength(1);
    await removeJournal(dataDir, 'b', e.key);
    expect(await readJournal(dataDir, 'b', e.key)).toBeUndefined();
  });

  it('treats a journal for another key (hash collision, hand edit) as absent', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'courier-journal-'));
    const e = entry('delivery/audio/f/a.wav');
    await new JournalWriter(dataDir, e).commit();
    expect(await readJournal(dataDir, 'other-bucket', e.key)).toBeUndefined();
  });
});
