/**
 * A full garbage collection, for tests that check what is let go (`WeakRef`s cleared): V8's
 * `gc()`, exposed for this process without starting it with `--expose-gc`.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
export const collectGarbage = runInNewContext('gc') as () => void;
