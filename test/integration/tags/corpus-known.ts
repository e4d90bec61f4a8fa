/**
 * Where Courier knowingly reads the real-world corpus differently from its oracle
 * (corpus.test.ts): file → checks → why. The tier fails on a difference not listed here, and
 * on a listed one that no longer occurs, so the list only shrinks: a fix deletes its entries.
 */
import type { CorpusField } from '../../support/corpus-oracle.js';

/**
 * What the tier checks per file: `read` (a file the oracle decodes is not rejected),
 * `raw-text` (findings carry no raw library error text), `cut-short` (a master found cut
 * short ends where ffmpeg stops decoding it, and one ffmpeg decodes well short of its recorded
 * length is found cut short), `blocks:<field>` (no error-level
 * validation finding on that field of a file the oracle reads), and each compared field.
 */
export type CorpusCheck = CorpusField | 'read' | 'raw-text' | 'cut-short' | `blocks:${string}`;

/** Why Courier differs, by kind: each is a fix to make, or (the last) a choice Courier keeps. */
export const differenceCategories = {
  'rejects-decodable': 'rejected as truncated or damaged, though ffmpeg decodes it',
  'raw-text': 'raw library text in a finding',
  'unsupported-format': '"unsupported", tags not read (WMA, APE, WavPack, Musepack, DSF, DFF)',
  'video-file':
    'intended: a video with a sound track is not an audio master (a blocking error says so, or its extension is not audio)',
  'invalid-in-file': 'intended: the file holds an invalid value and Courier asks for a fix',
  'value-order':
    'several values of one tag: Courier takes the first in the file, the tools list them in another order',
  'oracle-estimate':
    "ffprobe's recorded length is an estimate from the bitrate (no Xing header, or a concatenated file); the file's own header agrees with what ffmpeg decodes",
  'v23-joined-list':
    'intended: ID3v2.3 writes a list joined with "/" (Picard\'s convention); Courier splits the ARTISTS list, the tools keep the joined text',
} as const;

/** One kind of difference. */
export type DifferenceCategory = keyof typeof differenceCategories;

/** One listed difference: the checks it covers on one file, its kind and why. */
export interface KnownDifference {
  checks: CorpusCheck[];
  category: DifferenceCategory;
  why: string;
}

/** Every difference the tier expects today, by file (relative to the corpus root). */
export const knownDifferences: Record<string, KnownDifference[]> = {
  // How several values in one tag are written.
  "MusicBrainz - Beth Hart - Sinner's Prayer [id3v2.3].V2.mp3": [
    {
      checks: ['artists'],
      category: 'v23-joined-list',
      why: 'TXXX:ARTISTS "Beth Hart/Joe Bonamassa" is two artists, as Picard wrote them',
    },
  ],
  "02-Yeahs-It's Blitz! 2.mp3": [
    {
      checks: ['blocks:isrc'],
      category: 'invalid-in-file',
      why: 'TSRC is the placeholder "isrc1": validation asks for a real ISRC',
    },
    {
      checks: ['cut-short'],
      category: 'oracle-estimate',
      why: 'the Xing header records 0.58 s and ffmpeg decodes 0.51 s; ffprobe estimates 27 s from the size ("invalid concatenated file")',
    },
  ],

  // Which of a file's tags wins.

  // Integrity: where ffprobe's length is not the file's.
  'issue-100.mp3': [
    {
      checks: ['cut-short'],
      category: 'oracle-estimate',
      why: 'the Xing header records 0.58 s and ffmpeg decodes 0.51 s; ffprobe estimates 8 s from the size ("invalid concatenated file")',
    },
  ],
  'mp3/layer3/he_32khz.mp3': [
    {
      checks: ['cut-short'],
      category: 'oracle-estimate',
      why: "VBR without an Xing header: ffprobe takes the first frame's bitrate for all; the last frame is whole",
    },
  ],
  'mp3/layer3/he_44khz.mp3': [
    {
      checks: ['cut-short'],
      category: 'oracle-estimate',
      why: "VBR without an Xing header: ffprobe takes the first frame's bitrate for all; the last frame is whole",
    },
  ],
  'mp3/layer3/he_48khz.mp3': [
    {
      checks: ['cut-short'],
      category: 'oracle-estimate',
      why: "VBR without an Xing header: ffprobe takes the first frame's bitrate for all; the last frame is whole",
    },
  ],

  // Several values of one tag.
  "MusicBrainz - Beth Hart - Sinner's Prayer.wma": [
    {
      checks: ['isrc'],
      category: 'value-order',
      why: 'two WM/ISRC attributes, USMH51100098 first in the file; the tools list NLB931100460 first',
    },
  ],
  'matroska/no-duration.webm': [
    {
      checks: ['read'],
      category: 'rejects-decodable',
      why: 'WebM audio without a duration: no audio found, though ffmpeg decodes it',
    },
  ],

  // Video files whose sound track ffmpeg decodes.
  ...Object.fromEntries(
    [
      'asf/elephant.asf',
      'matroska/big-buck-bunny_trailer-short.vp8.webm',
      'matroska/matroska-test-w1-test5-short.mkv',
      'ogg/short.ogv',
    ].map((file) => [
      file,
      [
        {
          checks: ['read'],
          category: 'video-file',
          why: 'a video; Courier delivers audio masters',
        },
      ],
    ]),
  ),

  // The file is wrong, and Courier says so.
  'aiff/No Sanctuary Here.aiff': [
    {
      checks: ['blocks:isrc', 'blocks:album.upc'],
      category: 'invalid-in-file',
      why: 'TSRC "Sampler_9" and TXXX:UPC "Sampler" are placeholders, not codes',
    },
  ],
};
