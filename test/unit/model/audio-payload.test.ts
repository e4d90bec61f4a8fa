/**
 * Where the audio payload is in layouts that encoders and taggers write but the fixtures of the
 * integration tier do not: several ID3v2 tags with padding after them, every kind of trailing
 * tag, FLAC behind an ID3v2 tag, streamed and RF64 WAVs, an AIFF whose COMM follows its sound
 * data, MP4 with two `mdat` boxes, Ogg with a comment spanning pages and bytes between pages.
 * Files are built here byte by byte; each case says which ranges are the audio.
 */
import { describe, expect, it } from 'vitest';

import { audioPayload } from '../../../src-main/core/model/audio-payload.js';
import { bytesSource } from '../../../src-main/core/model/block-tokenizer.js';

const memory = bytesSource;

const concat = (...parts: (Uint8Array | string | number[])[]) => {
  const arrays = parts.map((p) =>
    typeof p === 'string' ? new TextEncoder().encode(p) : Uint8Array.from(p),
  );
  const out = new Uint8Array(arrays.reduce((n, a) => n + a.length, 0));
  let at = 0;
  for (const a of arrays) {
    out.set(a, at);
    at += a.length;
  }
  return out;
};
const le32 = (n: number) => [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, (n >>> 24) & 0xff];
const be32 = (n: number) => [(n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];
const synchsafe = (n: number) => [(n >> 21) & 0x7f, (n >> 14) & 0x7f, (n >> 7) & 0x7f, n & 0x7f];
const filler = (n: number, seed = 1) => Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);

/** An ID3v2.4 tag of `body` bytes (`footer`: appended form, with its 3DI footer). */
const id3v2 = (body: number, footer = false) =>
  concat(
    'ID3',
    [4, 0, footer ? 0x10 : 0],
    synchsafe(body),
    filler(body, 7),
    footer ? concat('3DI', [4, 0, 0x10], synchsafe(body)) : [],
  );

/** `count` MPEG-1 layer III frames, 128 kbit/s at 44.1 kHz (417 bytes each, no padding). */
const mp3Frames = (count: number) =>
  concat(
    ...Array.from({ length: count }, (_, i) => concat([0xff, 0xfb, 0x90, 0x64], filler(413, i))),
  );

/** The payload's ranges as [start, end] pairs. */
async function ranges(bytes: Uint8Array) {
  const payload = await audioPayload(memory(bytes));
  return { kind: payload.kind, ranges: payload.ranges.map((r) => [r.start, r.end]) };
}

describe('audioPayload()', () => {
  it('MP3: from the first frame past several ID3v2 tags and padding, to before every trailing tag', async () => {
    const head = concat(id3v2(100), id3v2(50), new Uint8Array(64));
    const frames = mp3Frames(6);
    const ape = concat('APETAGEX', le32(2000), le32(32 + 5), le32(1), le32(0), new Uint8Array(8));
    const apeTag = concat(filler(5), ape);
    const lyrics = concat('LYRICSBEGIN', 'abc', '000014', 'LYRICS200');
    const id3v1 = concat('TAG', new Uint8Array(125));
    const file = concat(head, frames, apeTag, lyrics, id3v2(40, true), id3v1);
    expect(await ranges(file)).toEqual({
      kind: 'mpeg',
      ranges: [[head.length, head.length + frames.length]],
    });
  });

  it('FLAC: the frames past an ID3v2 tag, fLaC and every metadata block, less an ID3v1 tag', async () => {
    const streaminfo = concat([0x00, 0, 0, 34], filler(34));
    const picture = concat([0x06, 0, 0x10, 0x00], filler(4096));
    const padding = concat([0x81, 0, 0, 100], new Uint8Array(100));
    const head = concat(id3v2(30), 'fLaC', streaminfo, picture, padding);
    const frames = concat([0xff, 0xf8], filler(3000));
    const file = concat(head, frames, 'TAG', new Uint8Array(125));
    expect(await ranges(file)).toEqual({
      kind: 'flac',
      ranges: [[head.length, head.length + frames.length]],
    });
  });

  it('WAV: the fmt chunk, then the data chunk without its pad byte or the chunks after it', async () => {
    const fmt = concat('fmt ', le32(16), filler(16));
    const list = concat('LIST', le32(9), filler(9), [0]);
    const data = concat('data', le32(7), filler(7), [0]);
    const id3 = concat('id3 ', le32(20), filler(20));
    const body = concat('WAVE', fmt, list, data, id3);
    const file = concat('RIFF', le32(body.length), body);
    const dataAt = 12 + fmt.length + list.length + 8;
    expect(await ranges(file)).toEqual({
      kind: 'wave',
      ranges: [
        [20, 36],
        [dataAt, dataAt + 7],
      ],
    });
  });

  it('WAV: a streamed data chunk (size 0) runs to the end; RF64 takes its size from ds64', async () => {
    const fmt = concat('fmt ', le32(16), filler(16));
    const streamed = concat('RIFF', le32(0), 'WAVE', fmt, 'data', le32(0), filler(100));
    expect(await ranges(streamed)).toEqual({
      kind: 'wave',
      ranges: [
        [20, 36],
        [44, 144],
      ],
    });
    const ds64 = concat('ds64', le32(28), le32(0), le32(0), le32(50), le32(0), filler(12));
    const rf64 = concat('RF64', le32(0xffffffff), 'WAVE', ds64, fmt, 'data', le32(0xffffffff));
    const file = concat(rf64, filler(50), 'junk', le32(4), filler(4));
    expect(await ranges(file)).toEqual({
      kind: 'wave',
      ranges: [
        [56, 72],
        [rf64.length, rf64.length + 50],
      ],
    });
  });

  it('AIFF: the COMM chunk first, wherever it is, then the sound data past its offset', async () => {
    const ssnd = concat('SSND', be32(8 + 4 + 64), be32(4), be32(0), filler(4), filler(64));
    const comm = concat('COMM', be32(18), filler(18));
    const body = concat('AIFF', ssnd, comm);
    const file = concat('FORM', be32(body.length), body);
    const commAt = 12 + ssnd.length + 8;
    expect(await ranges(file)).toEqual({
      kind: 'aiff',
      ranges: [
        [commAt, commAt + 18],
        [12 + 8 + 8 + 4, 12 + 8 + 8 + 4 + 64],
      ],
    });
  });

  it('MP4: the bodies of every mdat box (64-bit sizes too), never the index or the tags', async () => {
    const ftyp = concat(be32(16), 'ftypM4A ', be32(0));
    const mdat1 = concat(be32(8 + 100), 'mdat', filler(100));
    const moov = concat(be32(8 + 40), 'moov', filler(40));
    const mdat2 = concat(be32(1), 'mdat', be32(0), be32(16 + 30), filler(30));
    const file = concat(ftyp, mdat1, moov, mdat2);
    const second = ftyp.length + mdat1.length + moov.length;
    expect(await ranges(file)).toEqual({
      kind: 'mp4',
      ranges: [
        [24, 124],
        [second + 16, second + 16 + 30],
      ],
    });
  });

  it('Ogg: page bodies after the header pages (granule 0, and -1 before the first audio), headers left out', async () => {
    const page = (granule: number | null, serial: number, body: number, seed: number) => {
      const lacing = Array.from({ length: Math.ceil((body + 1) / 255) }, (_, i) =>
        Math.min(255, body - i * 255),
      );
      const position =
        granule === null
          ? [...le32(0xffffffff), ...le32(0xffffffff)]
          : [...le32(granule), 0, 0, 0, 0];
      return concat(
        'OggS',
        [0, 0],
        position,
        le32(serial),
        le32(seed),
        le32(0),
        [lacing.length],
        lacing,
        filler(body, seed),
      );
    };
    const pages = [
      page(0, 9, 30, 1), // identification header
      page(null, 9, 600, 2), // comments with a cover: no packet ends here
      page(0, 9, 200, 3), // the comment and setup headers end here
      page(960, 9, 400, 4), // audio
      page(null, 9, 300, 5), // audio: a packet spanning pages
      page(4800, 9, 100, 6),
    ];
    const junk = new Uint8Array(13);
    const file = concat(...pages.slice(0, 4), junk, ...pages.slice(4));
    const bodies: number[][] = [];
    let at = 0;
    for (const [i, p] of pages.entries()) {
      if (i === 4) at += junk.length;
      const header = 27 + p[26]!;
      if (i >= 3) bodies.push([at + header, at + p.length]);
      at += p.length;
    }
    expect(await ranges(file)).toEqual({ kind: 'ogg', ranges: bodies });
  });

  it('anything else: the whole file less its ID3v2 and APEv2 tags, told from the bytes, not the name', async () => {
    const wavpack = concat('wvpk', filler(500));
    const ape = concat('APETAGEX', le32(2000), le32(32 + 10), le32(1), le32(0), new Uint8Array(8));
    const file = concat(id3v2(20), wavpack, filler(10), ape);
    expect(await ranges(file)).toEqual({ kind: 'other', ranges: [[30, 30 + wavpack.length]] });
    expect(await ranges(concat(filler(64)))).toEqual({ kind: 'other', ranges: [[0, 64]] });
  });
});
