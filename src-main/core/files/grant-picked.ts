/**
 * Grants the files a page says the user dropped or picked (`files:grant`), the same way for
 * every door. Each file is granted only when the door finds it on disk and its content matches
 * the page's proof (`FileGrants.grant`). Misses are bounded: past a few in one request, or more
 * in a minute, the rest is refused without looking, so a page can't turn the host into an
 * oracle by trying many guesses.
 */
import type { Logger } from '../log.js';
import type { FileClaim, FileGrants } from './file-grants.js';

/** Files refused in one request before the rest is refused without looking. */
export const MAX_MISSES_PER_REQUEST = 50;
/** Files refused in a minute, over all requests, before new ones are refused without looking. */
export const MAX_MISSES_PER_MINUTE = 200;
/** Files checked at once (each check reads up to 128 KiB). */
const CHECKS_AT_ONCE = 8;

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
    const since = this.#now() - 60_000;
    this.#recent = this.#recent.filter((at) => at > since);
    if (this.#recent.length >= this.#perMinute) {
      return `not looked for: ${this.#recent.length} files were not found or did not match in the last minute (a guard against guessing); add them again in a minute`;
    }
    return null;
  }

  /** Counts one miss. */
  miss(): void {
    this.#recent.push(this.#now());
  }
}

/**
 * Grants each file `locate` finds whose content matches the claim's proof. `locate` answers
 * the paths the file may be at (none when the door can't tell), best first.
 */
export async function grantPicked(
  claims: readonly PickedClaim[],
  locate: (claim: PickedClaim, index: number) => Promise<readonly string[]>,
  grants: FileGrants,
  budget: MissBudget,
  log?: Logger,
): Promise<PickedGrants> {
  const outcomes: Array<PickedGrants['granted'][number] | { reason: string }> = new Array(
    claims.length,
  );
  let next = 0;
  let missed = 0;
  let stoppedBy: string | null = null;

  const check = async (claim: PickedClaim, index: number) => {
    if (!claim.proof) return { reason: 'no proof of its content came with it' };
    let reason = 'not found on disk';
    for (const path of await locate(claim, index)) {
      try {
        const granted = await grants.grant(path, claim);
        return {
          id: granted.id,
          name: claim.name,
          relativePath: claim.relativePath,
          size: granted.size,
        };
      } catch (error) {
        reason = error instanceof Error ? error.message : String(error);
      }
    }
    return { reason };
  };

  const worker = async () => {
    while (next < claims.length) {
      const index = next++;
      const refusal = budget.refusal(missed);
      if (refusal) {
        stoppedBy ??= refusal;
        outcomes[index] = { reason: refusal };
        continue;
      }
      const outcome = await check(claims[index]!, index);
      if ('reason' in outcome) {
        missed++;
        budget.miss();
      }
      outcomes[index] = outcome;
    }
  };
  await Promise.all(Array.from({ length: Math.min(CHECKS_AT_ONCE, claims.length) }, worker));

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
