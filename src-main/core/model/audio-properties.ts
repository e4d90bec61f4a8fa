/**
 * What a master is, as a label's QC sheet names it: format, codec, lossless or lossy, sample
 * rate, bit depth, channels, duration and bitrate. Built from music-metadata's format and the
 * file's own structure (`integrity.ts`), the same in the CLI's scan and the renderer's workers.
 * Free of Node APIs: the renderer bundles it.
 */
import type { IFormat } from 'music-metadata';

import { sharedString } from './shared-pool.js';

/** The audio formats a label's delivery rules name, as ids (stable: they are kept in settings). */
export const audioFormatLabels = {
  wav: 'WAV',
  aiff: 'AIFF',
  flac: 'FLAC',
  alac: 'ALAC',
  mp3: 'MP3',
  mp2: 'MPEG layer II',
  mp1: 'MPEG layer I',
  aac: 'AAC',
  vorbis: 'Ogg Vorbis',
  opus: 'Opus',
  speex: 'Speex',
  wma: 'WMA',
  ape: "Monkey's Audio",
  wavpack: 'WavPack',
  musepack: 'Musepack',
  dsd: 'DSD',
  other: 'Other',
} as const;

/** One of the format ids. */
export type AudioFormatId = keyof typeof audioFormatLabels;

/** Every format id, in the order settings list them. */
export const audioFormatIds = Object.keys(audioFormatLabels) as AudioFormatId[];

/** A master's properties; absent values are not recorded in the file. */
export interface AudioProperties {
  format: AudioFormatId;
  /** The container as found ('MPEG', 'FLAC', 'WAVE', 'M4A/isom', 'Ogg', ...). */
  container: string;
  /** The codec as found ('MPEG 1 Layer 3', 'PCM', 'MPEG-4/AAC', ...). */
  codec: string;
  lossless: boolean;
  /** Hz. */
  sampleRate?: number;
  /** Bits per sample of lossless audio. */
  bitDepth?: number;
  channels?: number;
  /** Seconds, as the file's header says (the full length, even of a master cut short). */
  duration?: number;
  /** Average bits per second. */
  bitrate?: number;
  /** A FLAC's STREAMINFO holds the MD5 of its audio (false: it is all zeros). */
  md5?: boolean;
}

const losslessFormats: ReadonlySet<AudioFormatId> = new Set([
  'flac',
  'alac',
  'ape',
  'wavpack',
  'dsd',
]);

/** The format id of what music-metadata found. */
export function formatIdOf(container: string, codec: string): AudioFormatId {
  const c = container.toLowerCase();
  const k = codec.toLowerCase();
  if (c === 'mpeg' || k.startsWith('mpeg 1 layer') || /^mpeg 2(\.5)? layer/.test(k)) {
    if (k.endsWith('layer 1')) return 'mp1';
    if (k.endsWith('layer 2')) return 'mp2';
    return 'mp3';
  }
  if (c === 'flac' || k === 'flac') return 'flac';
  if (k.includes('alac')) return 'alac';
  if (c === 'wave' || c === 'rf64') return 'wav';
  if (c.startsWith('aiff')) return 'aiff';
  if (k.includes('aac')) return 'aac';
  if (k.startsWith('vorbis')) return 'vorbis';
  if (k.startsWith('opus')) return 'opus';
  if (k.startsWith('speex')) return 'speex';
  if (c.startsWith('asf')) return 'wma';
  if (c.startsWith('monkey')) return 'ape';
  if (c === 'wavpack') return 'wavpack';
  if (c.startsWith('musepack')) return 'musepack';
  if (c === 'dsf' || c.startsWith('dsdiff')) return 'dsd';
  return 'other';
}

/**
 * Whether a WAV or AIFF codec is uncompressed PCM (integer or float), as music-metadata names
 * them: WAV's 'PCM' and 'IEEE_FLOAT'; AIFF-C's 'not compressed', 'PCM (byte swapped)' (sowt, as
 * ffmpeg and macOS write 16-bit AIFF), '32-bit floating point', 'Float 32', or the name the file
 * gives ('Signed integer (little-endian) linear PCM'). ADPCM, A-law and µ-law are lossy.
 */
function isPcm(codec: string): boolean {
  const k = codec.toLowerCase();
  if (k.includes('adpcm')) return false;
  return k.includes('pcm') || k.includes('float') || k.includes('not compressed');
}

/**
 * The properties of a parsed file; `duration`, and the rate and channels where the parser gives
 * none, as the file's structure gives them, when known (`integrity.ts`).
 */
export function audioPropertiesOf(
  format: IFormat,
  measured: {
    duration?: number;
    md5?: boolean;
    size?: number;
    sampleRate?: number;
    channels?: number;
  } = {},
): AudioProperties {
  const container = format.container ?? '';
  const codec = format.codec ?? (container === 'DSF' ? 'DSD' : '');
  const id = formatIdOf(container, codec);
  const lossless =
    losslessFormats.has(id) || ((id === 'wav' || id === 'aiff') && isPcm(codec))
      ? true
      : (format.lossless ?? false);
  // music-metadata's length is the header's, exact but for MPEG audio without an Xing header,
  // where it is the first frame's bitrate against the size; the measured one averages frames.
  const duration =
    (container === 'MPEG' ? measured.duration : undefined) ??
    format.duration ??
    measured.duration ??
    (format.numberOfSamples && format.sampleRate
      ? format.numberOfSamples / format.sampleRate
      : undefined);
  const props: AudioProperties = { format: id, container, codec, lossless };
  const sampleRate = format.sampleRate ?? measured.sampleRate;
  const channels = format.numberOfChannels ?? measured.channels;
  if (sampleRate) props.sampleRate = sampleRate;
  if (lossless && format.bitsPerSample) props.bitDepth = format.bitsPerSample;
  if (channels) props.channels = channels;
  if (duration !== undefined && Number.isFinite(duration) && duration > 0) {
    props.duration = Math.round(duration * 1000) / 1000;
  }
  if (format.bitrate && Number.isFinite(format.bitrate)) props.bitrate = Math.round(format.bitrate);
  else if (measured.size && props.duration) {
    // The average over the whole file, tags included: what a reader without a header can say.
    props.bitrate = Math.round((measured.size * 8) / props.duration);
  }
  if (measured.md5 !== undefined) props.md5 = measured.md5;
  return props;
}

/** "3:24" or "1:02:03" for a duration in seconds (whole seconds, rounded down). */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${rest}` : `${m}:${rest}`;
}

/** A short QC line: "FLAC · lossless · 44.1 kHz · 16-bit · stereo · 3:24 · 1,014 kb/s". */
export function describeAudio(props: AudioProperties): string {
  const parts: string[] = [audioFormatLabels[props.format]];
  if (props.format === 'other' && props.codec) parts[0] = props.codec;
  parts.push(props.lossless ? 'lossless' : 'lossy');
  if (props.sampleRate) parts.push(`${Number((props.sampleRate / 1000).toFixed(2))} kHz`);
  if (props.bitDepth) parts.push(`${props.bitDepth}-bit`);
  if (props.channels) parts.push(channelsLabel(props.channels));
  if (props.duration !== undefined) parts.push(formatDuration(props.duration));
  if (props.bitrate) parts.push(`${Math.round(props.bitrate / 1000).toLocaleString('en')} kb/s`);
  return parts.join(' · ');
}

/** "mono", "stereo" or "6 channels". */
export function channelsLabel(channels: number): string {
  return channels === 1 ? 'mono' : channels === 2 ? 'stereo' : `${channels} channels`;
}

/**
 * The properties with the names thousands of files repeat (format, container, codec) held once
 * each (`sharedString`): read in a worker or parsed from a saved library, each file's come as
 * copies, 300,000 strings at 100,000 tracks.
 */
export function withSharedNames(audio: AudioProperties): AudioProperties {
  return {
    ...audio,
    format: sharedString(audio.format) as AudioFormatId,
    container: sharedString(audio.container),
    codec: sharedString(audio.codec),
  };
}
