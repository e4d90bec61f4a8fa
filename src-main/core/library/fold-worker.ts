/**
 * A worker thread of `library-session.ts`: folds a library's journal into its base, so that the
 * parsed journal lives, and is collected, on this thread's heap instead of main's.
 */
import { serveChunks } from '../tags/worker-lanes.js';
import { foldJournal, type FoldResult } from './library-session.js';

serveChunks<string, FoldResult>((dataDir) => foldJournal(dataDir));
