/**
 * A worker thread of `file-inspection.ts`: inspects the places a page's picked files may be,
 * with synchronous file calls that would block main's event loop on a slow disk.
 */
import { serveChunks } from '../tags/worker-lanes.js';
import { type Inspected, inspectFile, type Inspection } from './file-inspection.js';

serveChunks<Inspection[], Inspected[]>(async (places) => places.map(inspectFile));
