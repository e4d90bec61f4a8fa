/**
 * Audio fixtures generated at test time: short sine files made by ffmpeg, tagged by
 * python3-mutagen (ID3, Vorbis comments, MP4 atoms) or by ffmpeg (RIFF INFO, BWF). Nothing
 * binary is committed; tests that need these tools skip with a reason when they are missing.
 */
import { execFile, spawnSync } from 'node:child_process';
import { appendFile, copyFile, mkdir, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The system Python: `python3` on PATH may be a pyenv build without mutagen. */
export const systemPython = '/usr/bin/python3';

/** Every audio format the tag reader supports, as the fixtures produce them. */
export type FixtureFormat =
  'mp3' | 'flac' | 'ogg' | 'opus' | 'm4a-aac' | 'm4a-alac' | 'wav' | 'aiff';

/** Tag families a fixture can carry. */
export type TagFamily = 'id3v2.3' | 'id3v2.4' | 'vorbis' | 'mp4' | 'riff-info' | 'bwf';

const encoders: Record<FixtureFormat, { ext: string; args: string[] }> = {
  mp3: { ext: 'mp3', args: ['-ar', '22050', '-c:a', 'libmp3lame', '-b:a', '32k'] },
  flac: { ext: 'flac', args: ['-ar', '8000', '-c:a', 'flac'] },
  ogg: { ext: 'ogg', args: ['-ar', '22050', '-c:a', 'libvorbis', '-q:a', '0'] },
  opus: { ext: 'opus', args: ['-ar', '48000', '-c:a', 'libopus', '-b:a', '16k'] },
  'm4a-aac': { ext: 'm4a', args: ['-ar', '22050', '-c:a', 'aac', '-b:a', '32k'] },
  'm4a-alac': { ext: 'm4a', args: ['-ar', '8000', '-c:a', 'alac'] },
  wav: { ext: 'wav', args: ['-ar', '8000', '-c:a', 'pcm_s16le'] },
  aiff: { ext: 'aiff', args: ['-ar', '8000', '-c:a', 'pcm_s16be'] },
};

/** The file extension a fixture format is written with. */
export function extensionOf(format: FixtureFormat): string {
  return encoders[format].ext;
}

/** Which of ffmpeg and mutagen are missing here (empty when fixtures can be generated). */
export function missingFixtureTools(): string[] {
  const missing: string[] = [];
  if (spawnSync('ffmpeg', ['-version']).status !== 0) missing.push('ffmpeg');
  if (spawnSync(systemPython, ['-c', 'import mutagen']).status !== 0) {
    missing.push('python3-mutagen (/usr/bin/python3)');
  }
  return missing;
}

/** Metadata a fixture can carry; each family writes it under its own tag names. */
export interface FixtureTags {
  title?: string;
  artists?: string[];
  /** The multi-value ARTISTS tag Picard and Discogs taggers write beside ARTIST. */
  artistsTag?: string[];
  albumArtist?: string;
  album?: string;
  isrc?: string;
  barcode?: string;
  /** Tag name the barcode is written under (BARCODE by default). */
  barcodeKey?: 'BARCODE' | 'UPC' | 'EAN';
  /** e.g. '3' or '3/12'. */
  track?: string;
  disk?: string;
  /** YYYY, YYYY-MM or YYYY-MM-DD. ID3v2.3 stores a full date as TYER + TDAT. */
  date?: string;
  lyrics?: string;
  genres?: string[];
  mood?: string;
  label?: string;
  catalogNumber?: string;
  compilation?: boolean;
  /** BWF only: the bext description (where BWF files carry an ISRC, e.g. "ISRC:..."). */
  description?: string;
  /** Cover art of this many bytes (a picture frame, block or atom; not with RIFF INFO or BWF). */
  cover?: number;
  /** MP3 with an ID3v2 family: an ID3v1 tag at the end too. */
  id3v1?: boolean;
  /** MP3 only: an APEv2 tag at the end too (as foobar2000 and mp3gain write). */
  apev2?: boolean;
}

/** How `makeAudio` writes a file. */
export interface AudioOptions {
  /** Tone length (0.25 s by default: small files, fast tests). */
  seconds?: number;
  /** ffmpeg -metadata pairs. */
  metadata?: Record<string, string>;
}

/** Writes a sine tone in `format` to `path` (parents created). */
export async function makeAudio(
  format: FixtureFormat,
  path: string,
  options: AudioOptions = {},
): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const meta = Object.entries(options.metadata ?? {}).flatMap(([k, v]) => [
    '-metadata',
    `${k}=${v}`,
  ]);
  await run('ffmpeg', [
    '-v',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=440:duration=${options.seconds ?? 0.25}`,
    '-ac',
    '1',
    ...encoders[format].args,
    ...meta,
    ...(format === 'aiff' ? ['-f', 'aiff'] : []),
    path,
  ]);
}

/** One file to tag and how. */
export interface TagJob {
  path: string;
  family: TagFamily;
  tags: FixtureTags;
}

const mutagenScript = String.raw`
import json, sys
import base64
from mutagen.id3 import ID3, TYER, TDAT, TIT2, TPE1, TPE2, TALB, TSRC, TXXX, TRCK, TPOS, TDRC, USLT, TCON, TMOO, TPUB, TCMP, APIC
from mutagen.mp4 import MP4, MP4FreeForm, MP4Cover
from mutagen.flac import FLAC, Picture
from mutagen.apev2 import APEv2
from mutagen import File

def cover_bytes(n):
    return (b'\xff\xd8\xff\xe0' + bytes(range(256)) * (n // 256 + 1))[:n]

def picture(n):
    p = Picture()
    p.type, p.mime, p.data = 3, 'image/jpeg', cover_bytes(n)
    return p

def id3_frames(t, v):
    f = []
    if 'title' in t: f.append(TIT2(encoding=3, text=t['title']))
    if 'artists' in t: f.append(TPE1(encoding=3, text=t['artists'] if v == 4 else ['/'.join(t['artists'])]))
    if 'artistsTag' in t: f.append(TXXX(encoding=3, desc='ARTISTS', text=t['artistsTag'] if v == 4 else ['/'.join(t['artistsTag'])]))
    if 'albumArtist' in t: f.append(TPE2(encoding=3, text=t['albumArtist']))
    if 'album' in t: f.append(TALB(encoding=3, text=t['album']))
    if 'isrc' in t: f.append(TSRC(encoding=3, text=t['isrc']))
    if 'barcode' in t: f.append(TXXX(encoding=3, desc=t.get('barcodeKey', 'BARCODE'), text=t['barcode']))
    if 'track' in t: f.append(TRCK(encoding=3, text=t['track']))
    if 'disk' in t: f.append(TPOS(encoding=3, text=t['disk']))
    if 'date' in t and v == 4: f.append(TDRC(encoding=3, text=t['date']))
    if 'date' in t and v == 3:
        f.append(TYER(encoding=1, text=t['date'][:4]))
        if len(t['date']) >= 10: f.append(TDAT(encoding=1, text=t['date'][8:10] + t['date'][5:7]))
    if 'lyrics' in t: f.append(USLT(encoding=3, lang='eng', desc='', text=t['lyrics']))
    if 'genres' in t: f.append(TCON(encoding=3, text=t['genres'] if v == 4 else ['/'.join(t['genres'])]))
    if 'mood' in t: f.append(TMOO(encoding=3, text=t['mood']) if v == 4 else TXXX(encoding=3, desc='MOOD', text=t['mood']))
    if 'label' in t: f.append(TPUB(encoding=3, text=t['label']))
    if 'catalogNumber' in t: f.append(TXXX(encoding=3, desc='CATALOGNUMBER', text=t['catalogNumber']))
    if t.get('compilation'): f.append(TCMP(encoding=3, text='1'))
    if 'cover' in t: f.append(APIC(encoding=3, mime='image/jpeg', type=3, desc='Cover', data=cover_bytes(t['cover'])))
    return f

def vorbis(tags, t):
    simple = [('title', 'TITLE'), ('album', 'ALBUM'), ('albumArtist', 'ALBUMARTIST'), ('isrc', 'ISRC'),
              ('track', 'TRACKNUMBER'), ('disk', 'DISCNUMBER'), ('date', 'DATE'), ('lyrics', 'LYRICS'),
              ('mood', 'MOOD'), ('label', 'LABEL'), ('catalogNumber', 'CATALOGNUMBER')]
    for k, n in simple:
        if k in t: tags[n] = [t[k]]
    if 'artists' in t: tags['ARTIST'] = t['artists']
    if 'artistsTag' in t: tags['ARTISTS'] = t['artistsTag']
    if 'genres' in t: tags['GENRE'] = t['genres']
    if 'barcode' in t: tags[t.get('barcodeKey', 'BARCODE')] = [t['barcode']]
    if t.get('compilation'): tags['COMPILATION'] = ['1']

def pair(s):
    a, _, b = s.partition('/')
    return (int(a), int(b) if b else 0)

def mp4(tags, t):
    simple = [('title', '\xa9nam'), ('album', '\xa9alb'), ('albumArtist', 'aART'), ('date', '\xa9day'), ('lyrics', '\xa9lyr')]
    for k, n in simple:
        if k in t: tags[n] = [t[k]]
    if 'artists' in t: tags['\xa9ART'] = t['artists']
    if 'artistsTag' in t: tags['----:com.apple.iTunes:ARTISTS'] = [MP4FreeForm(a.encode('utf-8')) for a in t['artistsTag']]
    if 'genres' in t: tags['\xa9gen'] = t['genres']
    if 'track' in t: tags['trkn'] = [pair(t['track'])]
    if 'disk' in t: tags['disk'] = [pair(t['disk'])]
    if t.get('compilation'): tags['cpil'] = True
    if 'cover' in t: tags['covr'] = [MP4Cover(cover_bytes(t['cover']), imageformat=MP4Cover.FORMAT_JPEG)]
    free = [('isrc', 'ISRC'), ('mood', 'MOOD'), ('label', 'LABEL'), ('catalogNumber', 'CATALOGNUMBER')]
    if 'barcode' in t: free.append(('barcode', t.get('barcodeKey', 'BARCODE')))
    for k, n in free:
        if k in t: tags['----:com.apple.iTunes:' + n] = [MP4FreeForm(t[k].encode('utf-8'))]

for job in json.load(sys.stdin):
    path, family, t = job['path'], job['family'], job['tags']
    if family.startswith('id3'):
        v = 3 if family == 'id3v2.3' else 4
        if path.lower().endswith('.mp3'):
            tags = ID3()
            for fr in id3_frames(t, v): tags.add(fr)
            tags.save(path, v2_version=v, v1=2 if t.get('id3v1') else 1)
            if t.get('apev2'):
                ape = APEv2()
                ape['Title'] = t.get('title', '')
                ape.save(path)
        else:
            f = File(path)
            if f.tags is None: f.add_tags()
            for fr in id3_frames(t, v): f.tags.add(fr)
            f.save(v2_version=v)
    elif family == 'vorbis':
        f = File(path)
        if f.tags is None: f.add_tags()
        vorbis(f.tags, t)
        if 'cover' in t and isinstance(f, FLAC): f.add_picture(picture(t['cover']))
        elif 'cover' in t: f.tags['METADATA_BLOCK_PICTURE'] = [base64.b64encode(picture(t['cover']).write()).decode('ascii')]
        f.save()
    elif family == 'mp4':
        f = MP4(path)
        if f.tags is None: f.add_tags()
        mp4(f.tags, t)
        f.save()
    else:
        raise SystemExit('unknown family ' + family)
`;

/** RIFF INFO keys ffmpeg writes for each fixture field. */
function riffInfo(tags: FixtureTags): Record<string, string> {
  const m: Record<string, string> = {};
  if (tags.title) m.INAM = tags.title;
  if (tags.artists) m.IART = tags.artists.join('; ');
  if (tags.album) m.IPRD = tags.album;
  if (tags.date) m.ICRD = tags.date;
  if (tags.genres) m.IGNR = tags.genres.join('; ');
  if (tags.track) m.IPRT = tags.track;
  if (tags.isrc) m.ISRC = tags.isrc;
  if (tags.label) m.IPUB = tags.label;
  return m;
}

/** Tags files in place: mutagen families in one Python run, RIFF INFO / BWF via ffmpeg. */
export async function writeTags(jobs: TagJob[]): Promise<void> {
  const mutagenJobs = jobs.filter((j) => j.family !== 'riff-info' && j.family !== 'bwf');
  if (mutagenJobs.length > 0) {
    await new Promise<void>((resolve, reject) => {
      const child = execFile(
        systemPython,
        ['-c', mutagenScript],
        { maxBuffer: 16 * 1024 * 1024 },
        (error, _out, stderr) =>
          error ? reject(new Error(`mutagen: ${stderr || error.message}`)) : resolve(),
      );
      child.stdin?.end(JSON.stringify(mutagenJobs));
    });
  }
  for (const job of jobs) {
    if (job.family !== 'riff-info' && job.family !== 'bwf') continue;
    const meta =
      job.family === 'riff-info'
        ? riffInfo(job.tags)
        : {
            description: job.tags.description ?? '',
            originator: job.tags.label ?? '',
            origination_date: job.tags.date ?? '',
          };
    const temp = `${job.path}.tmp.wav`;
    await run('ffmpeg', [
      '-v',
      'error',
      '-y',
      '-i',
      job.path,
      '-c',
      'copy',
      ...(job.family === 'bwf' ? ['-write_bext', '1'] : []),
      ...Object.entries(meta).flatMap(([k, v]) => ['-metadata', `${k}=${v}`]),
      temp,
    ]);
    await rename(temp, job.path);
  }
}

/** Makes one tagged file: a fresh tone in `format`, then `tags` written as `family`. */
export async function makeTaggedAudio(
  format: FixtureFormat,
  path: string,
  family: TagFamily,
  tags: FixtureTags,
): Promise<void> {
  await makeAudio(format, path);
  await writeTags([{ path, family, tags }]);
}

/** Copies a template file to each destination (parents created). */
export async function copyTemplate(template: string, destinations: string[]): Promise<void> {
  for (const destination of destinations) {
    await mkdir(dirname(destination), { recursive: true });
    await copyFile(template, destination);
  }
}

/**
 * A long MP3 (`seconds` of a 256 kb/s sine, some 1.3 MB for 40 s) whose only tag is an ID3v1 tag
 * in its last 128 bytes giving `title`: its tags are read from its end.
 */
export async function makeLongMp3WithTailTag(
  path: string,
  title: string,
  seconds = 40,
): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await run('ffmpeg', [
    ...['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi'],
    ...['-i', `sine=frequency=440:duration=${seconds}`, '-c:a', 'libmp3lame', '-b:a', '256k'],
    ...['-id3v2_version', '0', '-map_metadata', '-1', '-f', 'mp3', path],
  ]);
  const tag = Buffer.alloc(128);
  tag.write('TAG', 0, 'latin1');
  tag.write(title.slice(0, 30), 3, 'latin1');
  tag[127] = 255;
  await appendFile(path, tag);
}
