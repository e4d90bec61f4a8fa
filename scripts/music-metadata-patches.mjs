// Five changes to music-metadata and the token reader it uses, made as each bundle that includes it is built (the CLI and its
// workers, the Electron main process, the renderer and its workers), that make a scan of many
// files much cheaper without changing what is read. Each names the exact line it replaces: a
// music-metadata without that line fails the build, so a speed-up is never lost in silence.
//  - Shared tag mappers: music-metadata builds its eleven tag mappers (every native tag name of
//    every tag family, upper-cased into fresh maps) for each file it parses, about an eighth of
//    the CPU of a scan; they hold nothing but those maps, so one set is built and shared.
//  - ID3v2 padding: taggers leave room after the frames (mutagen and iTunes 1–2 KiB of zeros);
//    music-metadata reads it as empty frames, ten bytes at a time, with two warnings each (some
//    200 per MP3). A frame id never starts with a zero byte, so the frames end there.
//  - One DataView per buffer: token-types makes a new DataView for every number it reads, and an
//    MP4's sample tables are read one entry at a time (some 20,000 numbers in a four-minute AAC:
//    two fifths of the CPU of reading it). The last buffer's view is kept and used again.
//  - Its debug logging is off: its parsers call `debug` some 80 times a file, each call asking
//    whether the namespace is enabled (a fiftieth of a scan's CPU). Nothing sets DEBUG for it.
//    The collector's three busiest calls (each format field, native tag and common tag) also
//    built their message, a template of the tag's value, for nothing: those lines are emptied.
//  - Tags added without a promise each: the collector's `addTag`, `toCommon` and `postMap` were
//    async, three promises and their awaits for every tag, though none waits for anything but a
//    picture's type. They now return `postMap`'s promise when it has one (a picture's) and
//    nothing else; every caller awaits or returns what `addTag` gives, so each tag is added and
//    mapped in the same order, and a failure reaches the parser as before.
import { readFile } from 'node:fs/promises';

const collector = /music-metadata[\\/]lib[\\/]common[\\/]MetadataCollector\.js$/;

/** Edits, each of one line (never adding or removing one, so the source maps stay right). */
const patches = [
  {
    file: collector,
    from: 'this.tagMapper = new CombinedTagMapper();',
    to: 'this.tagMapper = sharedTagMapper ??= new CombinedTagMapper();',
    // Last, so every other line keeps its number.
    append: 'let sharedTagMapper;',
  },
  { file: collector, from: 'debug(`format: ${key} = ${value}`);', to: '' },
  { file: collector, from: 'debug(`tag ${tagType}.${tagId} = ${value}`);', to: '' },
  { file: collector, from: 'debug(`common.${tag.id} = ${tag.value}`);', to: '' },
  {
    file: collector,
    from: 'async addTag(tagType, tagId, value) {',
    to: 'addTag(tagType, tagId, value) {',
  },
  {
    file: collector,
    from: 'await this.toCommon(tagType, tagId, value);',
    to: 'return this.toCommon(tagType, tagId, value);',
  },
  {
    file: collector,
    from: 'async toCommon(tagType, tagId, value) {',
    to: 'toCommon(tagType, tagId, value) {',
  },
  {
    file: collector,
    from: 'await this.postMap(tagType, genericTag);',
    to: 'return this.postMap(tagType, genericTag);',
  },
  { file: collector, from: 'async postMap(tagType, tag) {', to: 'postMap(tagType, tag) {' },
  {
    file: /music-metadata[\\/]lib[\\/]id3v2[\\/]ID3v2Parser\.js$/,
    from: 'const frameHeaderBytes = data.subarray(offset, offset + frameHeaderLength);',
    to: 'const frameHeaderBytes = data.subarray(offset, offset + frameHeaderLength); if (frameHeaderBytes[0] === 0) break;',
  },
  {
    file: /token-types[\\/]dist[\\/]lib[\\/]index\.js$/,
    from: 'return new DataView(array.buffer, array.byteOffset);',
    to: 'if (array !== lastArray) { lastArray = array; lastView = new DataView(array.buffer, array.byteOffset); } return lastView;',
    // Appended last as the first patch is; `var`, so it is declared before any line runs.
    append: 'var lastArray, lastView;',
  },
];

/** `source` of the music-metadata module at `path` with its patches made (unchanged if none). */
export function patchMusicMetadata(source, path) {
  let patched = source;
  const appended = [];
  for (const patch of patches.filter((p) => p.file.test(path))) {
    if (!patched.includes(patch.from)) {
      throw new Error(
        `${path}: music-metadata no longer has the line '${patch.from}'; update scripts/music-metadata-patches.mjs`,
      );
    }
    patched = patched.replace(patch.from, patch.to);
    if (patch.append) appended.push(patch.append);
  }
  return appended.length > 0 ? `${patched}\n${appended.join('\n')}\n` : patched;
}

const anyPatched = new RegExp(patches.map((p) => p.file.source).join('|'));

/** An importer whose `debug` is the silent one. */
const quietDebugFor = /[\\/]node_modules[\\/]music-metadata[\\/]/;

/** The `debug` music-metadata gets: every logger it makes does nothing. */
const quietDebug =
  'const off = () => {}; off.enabled = false; off.extend = () => off;\n' +
  'export default function createDebug() { return off; }\n';

/** The esbuild plugin (scripts/courier.mjs, scripts/build-main.mjs). */
export const esbuildMusicMetadataPatches = {
  name: 'music-metadata-patches',
  setup(build) {
    build.onResolve({ filter: /^debug$/ }, ({ importer }) =>
      quietDebugFor.test(importer) ? { path: 'debug', namespace: 'quiet-debug' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'quiet-debug' }, () => ({
      contents: quietDebug,
      loader: 'js',
    }));
    build.onLoad({ filter: anyPatched }, async ({ path }) => ({
      contents: patchMusicMetadata(await readFile(path, 'utf8'), path),
      loader: 'js',
    }));
  },
};

/** The Vite plugin (vite.config.ts: the renderer and its workers). */
export function viteMusicMetadataPatches() {
  return {
    name: 'music-metadata-patches',
    enforce: 'pre',
    resolveId(source, importer) {
      return source === 'debug' && importer && quietDebugFor.test(importer)
        ? '\0quiet-debug'
        : null;
    },
    load(id) {
      return id === '\0quiet-debug' ? quietDebug : null;
    },
    transform(code, id) {
      const path = id.split('?')[0];
      if (!anyPatched.test(path)) return null;
      return { code: patchMusicMetadata(code, path), map: null };
    },
  };
}
