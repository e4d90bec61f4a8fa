/** What a master's QC line says it is: lossless or lossy by its codec as music-metadata names it. */
import type { IFormat } from 'music-metadata';
import { describe, expect, it } from 'vitest';

import { audioPropertiesOf } from '../../../src-main/core/model/audio-properties.js';

const of = (container: string, codec: string) =>
  audioPropertiesOf({ container, codec, bitsPerSample: 16, sampleRate: 44100 } as IFormat);

describe('audioPropertiesOf()', () => {
  it('takes uncompressed WAV and AIFF, however their codec is named, as lossless with a bit depth', () => {
    for (const [container, codec] of [
      ['WAVE', 'PCM'],
      ['WAVE', 'IEEE_FLOAT'],
      ['AIFF', 'PCM'],
      ['AIFF-C', 'not compressed\tPCM\tApple Computer'],
      ['AIFF-C', 'PCM (byte swapped)'],
      ['AIFF-C', '32-bit floating point IEEE 32-bit float'],
      ['AIFF-C', 'Float 32\tIEEE 32-bit float '],
      ['AIFF-C', 'Signed integer (little-endian) linear PCM'],
    ] as const) {
      expect(of(container, codec), codec).toMatchObject({ lossless: true, bitDepth: 16 });
    }
  });

  it('takes ADPCM, A-law and µ-law as lossy, without a bit depth', () => {
    for (const [container, codec] of [
      ['WAVE', 'ADPCM'],
      ['WAVE', 'DVI_ADPCM'],
      ['WAVE', 'ALAW'],
      ['WAVE', 'MULAW'],
      ['AIFF-C', 'ALaw 2:1\t8-bit ITU-T G.711 A-law'],
      ['AIFF-C', 'µLaw 2:1\t8-bit ITU-T G.711 µ-law\tApple Computer'],
    ] as const) {
      const props = of(container, codec);
      expect(props.lossless, codec).toBe(false);
      expect(props.bitDepth, codec).toBeUndefined();
    }
  });
});
