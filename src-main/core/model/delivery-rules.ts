/**
 * The rules a label sets once for the masters a profile delivers (Settings, per profile):
 * formats allowed, minimum sample rate, bit depth and length, and whether mono may go — each
 * off, a warning or an error. The defaults block nothing a provider would take. One check for
 * the CLI's plan, main's plan of the app's files and the renderer's grid. Pure: the renderer
 * bundles it.
 */
import {
  type AudioFormatId,
  audioFormatIds,
  audioFormatLabels,
  type AudioProperties,
  formatDuration,
} from './audio-properties.js';
import type { Finding } from './track.js';

/** How a rule weighs: not checked, a warning, or an error that blocks the delivery. */
export type RuleLevel = 'off' | 'warning' | 'error';

/** A profile's rules. */
export interface DeliveryRules {
  formats: { allowed: AudioFormatId[]; level: RuleLevel };
  minSampleRate: { hz: number; level: RuleLevel };
  /** Of lossless masters (a lossy one has no bit depth). */
  minBitDepth: { bits: number; level: RuleLevel };
  minDuration: { seconds: number; level: RuleLevel };
  /** How a mono master weighs ('off': mono goes like stereo). */
  mono: RuleLevel;
}

/**
 * The formats every profile delivers unless the label says otherwise: those every audio
 * pipeline takes. WMA, Monkey's Audio, WavPack, Musepack and DSD masters are read and shown,
 * and go once the label allows them.
 */
export const commonFormats: readonly AudioFormatId[] = [
  'wav',
  'aiff',
  'flac',
  'alac',
  'mp3',
  'mp2',
  'mp1',
  'aac',
  'vorbis',
  'opus',
  'speex',
];

/** What every profile starts with: nothing blocked that a provider would take. */
export const defaultRules: DeliveryRules = {
  formats: { allowed: [...commonFormats], level: 'error' },
  minSampleRate: { hz: 44_100, level: 'off' },
  minBitDepth: { bits: 16, level: 'off' },
  minDuration: { seconds: 30, level: 'off' },
  mono: 'off',
};

const levels: readonly RuleLevel[] = ['off', 'warning', 'error'];

const levelOf = (value: unknown, fallback: RuleLevel): RuleLevel =>
  levels.includes(value as RuleLevel) ? (value as RuleLevel) : fallback;

const numberIn = (value: unknown, min: number, max: number, fallback: number) =>
  typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max
    ? value
    : fallback;

/** Rules with every field present and valid, `fallback`'s where missing or wrong (a hand edit). */
export function normalizeRules(
  raw: unknown,
  fallback: DeliveryRules = defaultRules,
): DeliveryRules {
  const r = (raw && typeof raw === 'object' && !Array.isArray(raw) ? raw : {}) as Record<
    string,
    Record<string, unknown> | undefined
  >;
  const allowed = Array.isArray(r.formats?.allowed)
    ? audioFormatIds.filter((id) => (r.formats!.allowed as unknown[]).includes(id))
    : fallback.formats.allowed;
  return {
    formats: { allowed, level: levelOf(r.formats?.level, fallback.formats.level) },
    minSampleRate: {
      hz: numberIn(r.minSampleRate?.hz, 0, 1_000_000, fallback.minSampleRate.hz),
      level: levelOf(r.minSampleRate?.level, fallback.minSampleRate.level),
    },
    minBitDepth: {
      bits: numberIn(r.minBitDepth?.bits, 0, 64, fallback.minBitDepth.bits),
      level: levelOf(r.minBitDepth?.level, fallback.minBitDepth.level),
    },
    minDuration: {
      seconds: numberIn(r.minDuration?.seconds, 0, 86_400, fallback.minDuration.seconds),
      level: levelOf(r.minDuration?.level, fallback.minDuration.level),
    },
    mono: levelOf((raw as { mono?: unknown } | null)?.mono, fallback.mono),
  };
}

const kHz = (hz: number) => `${Number((hz / 1000).toFixed(2))} kHz`;

/** What the rules say about one master (nothing for a file whose properties are unknown). */
export function checkRules(audio: AudioProperties | undefined, rules: DeliveryRules): Finding[] {
  if (!audio) return [];
  const findings: Finding[] = [];
  const add = (level: RuleLevel, message: string) => {
    if (level !== 'off')
      findings.push({ level, message: `${message} (the profile's delivery rules)` });
  };
  if (!rules.formats.allowed.includes(audio.format)) {
    const allowed = rules.formats.allowed.map((id) => audioFormatLabels[id]).join(', ') || 'none';
    add(
      rules.formats.level,
      `${audio.format === 'other' ? audio.codec || audio.container || 'this format' : audioFormatLabels[audio.format]} is not a format this profile delivers (allowed: ${allowed}; Settings → Masters rules)`,
    );
  }
  if (audio.sampleRate !== undefined && audio.sampleRate < rules.minSampleRate.hz) {
    add(
      rules.minSampleRate.level,
      `sample rate ${kHz(audio.sampleRate)} is below the minimum of ${kHz(rules.minSampleRate.hz)}`,
    );
  }
  if (audio.bitDepth !== undefined && audio.bitDepth < rules.minBitDepth.bits) {
    add(
      rules.minBitDepth.level,
      `bit depth ${audio.bitDepth}-bit is below the minimum of ${rules.minBitDepth.bits}-bit`,
    );
  }
  if (audio.duration !== undefined && audio.duration < rules.minDuration.seconds) {
    add(
      rules.minDuration.level,
      `it lasts ${formatDuration(audio.duration)}, under the minimum of ${formatDuration(rules.minDuration.seconds)}`,
    );
  }
  if (audio.channels === 1) add(rules.mono, 'the master is mono');
  return findings;
}
