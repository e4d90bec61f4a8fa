/**
 * Where a new delivery's options come from (#15): the profile's saved defaults, else the app's,
 * else the interface's; a hand-edited settings file never stops the app.
 */
import { describe, expect, it } from 'vitest';

import { deliveryDefaults, interfaceDefaults } from '../../../src-main/core/settings/settings.js';
import { normalizeSettings } from '../../../src-main/core/settings/settings-store.js';

describe('deliveryDefaults()', () => {
  it("takes the profile's saved defaults, else the app's, else the interface's", () => {
    const settings = normalizeSettings({
      defaults: { mode: 'audio_only' },
      profileDefaults: {
        Label: { mode: 'audio_mapping', overwrite_audio_file: false, delete_delivered_file: false },
      },
    });
    expect(deliveryDefaults(settings, 'Label')).toEqual({
      mode: 'audio_mapping',
      overwrite_audio_file: false,
      delete_delivered_file: false,
    });
    expect(deliveryDefaults(settings, 'Other')).toEqual({
      ...interfaceDefaults,
      mode: 'audio_only',
    });
    expect(deliveryDefaults(normalizeSettings(undefined), 'Label')).toEqual(interfaceDefaults);
  });

  it('repairs hand-edited per-profile defaults field by field', () => {
    const settings = normalizeSettings({
      profileDefaults: { Label: { mode: 'ftp', overwrite_audio_file: 'no' }, Other: 'x' },
    });
    expect(settings.profileDefaults).toEqual({
      Label: interfaceDefaults,
      Other: interfaceDefaults,
    });
    expect(normalizeSettings({ profileDefaults: [1, 2] }).profileDefaults).toEqual({});
  });
});
