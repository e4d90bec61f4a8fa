/**
 * Grants the files a page says the user dropped or picked (`files:grant`), the same way for
 * every door. Each file is granted only when the door finds it on disk as the page described it
 * (`inspectFile`) and its content matches the page's proof (`FileGrants.admit`). Misses are
 * bounded: past a few in one request, or more in a minute, the rest is refused without
 * looking, so a page can't turn the host into an oracle by trying many guesses.
 */
import type { Logger } from '../log.js';
import type { FileClaim, FileGrants } from './file-grants.js';
import type { FileInspector, Inspection } from './file-inspection.js';

/** Files refused in one request before the rest is refused without looking. */
export const MAX_MISSES_PER_REQUEST = 50;
/** Files refused in a minute, over all requests, before new ones are refused without looking. */
export const MAX_MISSES_PER_MINUTE = 200;
/** Files inspected at once, at most (each inspection reads up to 128 KiB). */
const INSPECTED_AT_ONCE = 50;

/** A file as the page describes it. */
export interface PickedClaim extends FileClaim {
  name: string;
  relativePath: string;
}

/** What a request got: the granted files by id, and the refused ones with the reason. */
export interface PickedGrants {
  granted: Array<{ id: string; name: string; relativePath: string; size: number }>;
  refused: Array<{ relativePath: string; reason: string }>;
}

/**
 * The misses of the last minute, shared by every request of one door. A real drop misses only
 * when files are outside the host's folders or changed since, and then says so; only guessing
 * misses by the hundred.
 */
export class MissBudget {
  readonly #perRequest: number;
  readonly #perMinute: number;
  readonly #now: () => number;
  #recent: number[] = [];

  constructor(options: { perRequest?: number; perMinute?: number; now?: () => number } = {}) {
    this.#perRequest = options.perRequest ?? MAX_MISSES_PER_REQUEST;
    this.#perMinute = options.perMinute ?? MAX_MISSES_PER_MINUTE;
    this.#now = options.now ?? Date.now;
  }

  /** Why no more file may be looked for in a request that missed `missed` times, or null. */
  refusal(missed: number): string | null {
    if (missed >= this.#perRequest) {
      return `not looked for: ${missed} files of this request were not found or did not match (a guard against guessing)`;
    }
    if (this.#lastMinute() >= this.#perMinute) {
      return `not looked for: ${this.#recent.length} files were not found or did not match in the last minute (a guard against guessing); add them again in a minute`;
    }
    return null;
  }

  /** How many files may still be looked for in a request that missed `missed` times. */
  allowance(missed: number): number {
    return Math.max(0, Math.min(this.#perRequest - missed, this.#perMinute - this.#lastMinute()));
  }

  /** Counts one miss. */
  miss(): void {
    this.#recent.push(this.#now());
  }

  #lastMinute(): number {
    const since = this.#now() - 60_000;
    this.#recent = this.#recent.filter((at) => at > since);
    return this.#recent.length;
  }
}

/** How a door finds a picked file on disk. */
export interface PickedDoor {
  /** The places the file may be at (none when the door can't tell), best first. */
  locate(claim: PickedClaim, index: number): Promise<readonly string[]>;
  /**
   * The folders a file's real path must lie below, with no hidden folder on the way (the
   * browser host's roots); absent, anywhere (the door knows the path from the OS).
   */
  within?(): Promise<readonly string[]>;
}

/**
 * Grants each file the door finds whose content matches the claim's proof, trying each place
 * `locate` gives in turn. Files are looked for a slice at a time, never more than the misses
 * the budget still allows, so a request of guesses stops where it would have one by one.
 */
export async function grantPicked(
  claims: readonly PickedClaim[],
  door: PickedDoor,
  grants: FileGrants,
  inspector: FileInspector,
  budget: MissBudget,
  log?: Logger,
): Promise<PickedGrants> {
  const outcomes: Array<PickedGrants['granted'][number] | { reason: string }> = new Array(
    claims.length,
  );
  const within = await door.within?.();
  let missed = 0;
  let stoppedBy: string | null = null;

  const settle = (index: number, outcome: PickedGrants['granted'][number] | { reason: string }) => {
    if ('reason' in outcome) {
      missed++;
      budget.miss();
    }
    outcomes[index] = outcome;
  };

  for (let next = 0; next < claims.length;) {
    stoppedBy = budget.refusal(missed);
    if (stoppedBy) {
      for (; next < claims.length; next++) outcomes[next] = { reason: stoppedBy };
      break;
    }
    const slice = Math.min(budget.allowance(missed), INSPECTED_AT_ONCE, claims.length - next);
    const indices = Array.from({ length: slice }, (_, i) => next + i);
    next += slice;
    const places = await Promise.all(
      indices.map(async (index) =>
        claims[index]!.proof ? [...(await door.locate(claims[index]!, index))] : [],
      ),
    );
    const asked: Inspection[] = indices.flatMap((index, i) =>
      places[i]!.map((path) => ({ path, claim: claims[index]!, ...(within ? { within } : {}) })),
    );
    const inspected = await inspector.inspect(asked);
    let at = 0;
    indices.forEach((index, i) => {
      const claim = claims[index]!;
      const found = inspected.slice(at, (at += places[i]!.length));
      if (!claim.proof) return settle(index, { reason: 'no proof of its content came with it' });
      // Why none was granted: a file found with other content says more than a place empty.
      let mismatch: string | undefined;
      let miss = 'not found on disk';
      for (const place of found) {
        if (!place.found) {
          miss = place.reason;
          continue;
        }
        try {
          const granted = grants.admit(place.path, place, claim.proof);
          return settle(index, {
            id: granted.id,
            name: claim.name,
            relativePath: claim.relativePath,
            size: granted.size,
          });
        } catch (error) {
          mismatch ??= error instanceof Error ? error.message : String(error);
        }
      }
      settle(index, { reason: mismatch ?? miss });
    });
  }

  const result: PickedGrants = { granted: [], refused: [] };
  outcomes.forEach((outcome, index) => {
    if ('reason' in outcome) {
      result.refused.push({ relativePath: claims[index]!.relativePath, reason: outcome.reason });
    } else result.granted.push(outcome);
  });
  if (stoppedBy) {
    void log?.log('warn', 'files:grant: stopped looking for files after too many misses', {
      files: claims.length,
      granted: result.granted.length,
      missed,
      reason: stoppedBy,
    });
  }
  return result;
}
