import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  FileInspector,
  type Inspected,
  inspectFile,
  type Inspection,
  type InspectWorker,
  proofOfPath,
} from '../../../src-main/core/files/file-inspection.js';
import { startWorkers } from '../../../src-main/core/tags/worker-lanes.js';

describe('inspecting where a picked file may be', () => {
  let dir: string;
  let root: string;
  const claimOf = async (path: string) => {
    const info = await stat(path);
    return { size: info.size, lastModified: Math.trunc(info.mtimeMs) };
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'courier-inspect-'));
    root = join(dir, 'root');
    await mkdir(join(root, 'Album'), { recursive: true });
    await mkdir(join(root, '.hidden'));
    await writeFile(join(root, 'Album', '01.flac'), 'fLaC one');
    await writeFile(join(root, '.hidden', '01.flac'), 'fLaC one');
    await writeFile(join(dir, 'outside.flac'), 'fLaC one');
    await symlink(join(dir, 'outside.flac'), join(root, 'Album', 'link.flac'));
    await symlink(join(root, '.hidden', '01.flac'), join(root, 'Album', 'hidden.flac'));
    execFileSync('mkfifo', [join(root, 'Album', 'pipe.flac')]);
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('finds the file the page describes, with its proof, and nothing else', async () => {
    const path = join(root, 'Album', '01.flac');
    const claim = await claimOf(path);
    const within = [root];
    expect(inspectFile({ path, claim, within })).toEqual({
      path,
      found: true,
      size: claim.size,
      mtimeMs: (await stat(path)).mtimeMs,
      proof: proofOfPath(path, claim.size),
    });
    const missing = (p: string) => ({ path: p, found: false, reason: 'not found on disk' });
    // Another size or date: not the file the page saw.
    expect(inspectFile({ path, claim: { ...claim, size: 3 }, within })).toEqual(missing(path));
    expect(inspectFile({ path, claim: { ...claim, lastModified: 5 }, within })).toEqual(
      missing(path),
    );
    // A link out of the roots or into a hidden folder; a folder; a pipe (not waited on).
    for (const name of ['link.flac', 'hidden.flac']) {
      const place = join(root, 'Album', name);
      const itsClaim = await claimOf(place);
      expect(inspectFile({ path: place, claim: itsClaim, within })).toEqual(missing(place));
      // A door that knows the path from the OS allows it anywhere.
      expect(inspectFile({ path: place, claim: itsClaim })).toMatchObject({ found: true });
    }
    const pipe = join(root, 'Album', 'pipe.flac');
    expect(inspectFile({ path: pipe, claim: await claimOf(pipe), within })).toEqual(missing(pipe));
    const album = join(root, 'Album');
    expect(inspectFile({ path: album, claim: await claimOf(album), within })).toEqual(
      missing(album),
    );
    const gone = join(root, 'gone.flac');
    expect(inspectFile({ path: gone, claim, within })).toEqual(missing(gone));
    expect(inspectFile({ path: 'Album/01.flac', claim, within })).toMatchObject({ found: false });
    // Where the OS gave the path, the miss says what is wrong.
    const why = (inspected: Inspected) => (inspected.found ? '' : inspected.reason);
    expect(why(inspectFile({ path: pipe, claim: await claimOf(pipe) }))).toBe(
      `No such file: ${pipe}`,
    );
    expect(why(inspectFile({ path: gone, claim }))).toBe(`No such file: ${gone}`);
    expect(why(inspectFile({ path, claim: { ...claim, size: 3 } }))).toBe(
      `The file changed since it was picked: ${path}`,
    );
    expect(why(inspectFile({ path: 'Album/01.flac', claim }))).toBe(
      'Not an absolute path: Album/01.flac',
    );
  });

  it('answers the same on its worker thread, many places at a time, in order', async () => {
    const path = join(root, 'Album', '01.flac');
    const claim = await claimOf(path);
    const places: Inspection[] = Array.from({ length: 300 }, (_, i) => ({
      path: i % 3 === 0 ? path : join(root, 'Album', i % 3 === 1 ? 'link.flac' : 'pipe.flac'),
      claim,
      within: [root],
    }));
    const inspector = new FileInspector();
    const [first, second] = await Promise.all([
      inspector.inspect(places),
      inspector.inspect(places.slice(0, 7)),
    ]);
    expect(first).toEqual(places.map(inspectFile));
    expect(second).toEqual(places.slice(0, 7).map(inspectFile));
    await expect(inspector.inspect([])).resolves.toEqual([]);
  });

  it('answers on this thread when its worker cannot start, or dies, and starts no other', async () => {
    const path = join(root, 'Album', '01.flac');
    const places: Inspection[] = [
      { path, claim: await claimOf(path), within: [root] },
      { path: join(root, 'Album', 'pipe.flac'), claim: await claimOf(path), within: [root] },
    ];
    const unstarted = new FileInspector(() => null);
    await expect(unstarted.inspect(places)).resolves.toEqual(places.map(inspectFile));

    const asked = { started: 0, reads: 0, failed: 0 };
    const dying = new FileInspector(() => {
      asked.started++;
      const [worker] = startWorkers<Inspection[], Inspected[]>('inspect-worker', 1);
      worker!.stop(); // a real worker thread that exits before it answers
      const read: InspectWorker['read'] = (input, progress) => {
        asked.reads++;
        return worker!.read(input, progress).catch((error: unknown) => {
          asked.failed++;
          throw error;
        });
      };
      return { ...worker!, read };
    });
    await expect(dying.inspect(places)).resolves.toEqual(places.map(inspectFile));
    await expect(dying.inspect(places.slice(1))).resolves.toEqual([inspectFile(places[1]!)]);
    expect(asked).toEqual({ started: 1, reads: 1, failed: 1 });
  });
});
