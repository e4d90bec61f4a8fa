/**
 * The duplicate check alone, as one process, for `bench:scan` to time against `sha256sum`:
 * `findDuplicateAudio` on the files of DIR that `courier scan DIR --duplicates` compares. Prints
 * one JSON line: the files compared, the audio bytes hashed and the size of each group. The
 * bench bundles it with esbuild beside the check's worker thread, as the CLI runs.
 */
import { listLocalFiles } from '../../src-main/core/files/local-files.js';
import { comparedFiles, findDuplicateAudio } from '../../src-main/core/tags/duplicates.js';

const files = comparedFiles(await listLocalFiles(process.argv[2]!));
const found = await findDuplicateAudio(files);
const summary = {
  files: files.length,
  bytes: found.bytes,
  groups: found.groups.map((g) => g.length),
};
process.stdout.write(`${JSON.stringify(summary)}\n`);
