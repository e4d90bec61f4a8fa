/** One API request the sandbox received, as `GET /sandbox/requests` lists it. */
export interface LoggedRequest {
  at: number;
  method: string;
  path: string;
  query: Record<string, string>;
  status: number;
  /** Number of tracks in a JSON ingestion body, else null. */
  tracks: number | null;
  /** The outer_id of each track of a JSON ingestion body (as text), else null. */
  outer_ids: string[] | null;
}

/** How many requests the sandbox received since the log was last cleared, by path and status. */
export interface RequestCounts {
  total: number;
  /** Requests per path (`/ingestion/json`…). */
  by_path: Record<string, number>;
  /** Requests per answer status (`"200"`, `"429"`…). */
  by_status: Record<string, number>;
  /** Tracks in every JSON ingestion body. */
  tracks: number;
}

const MAX_PATHS = 100;
const OTHER_PATHS = '(other)';

/** The default number of requests kept in full. */
export const REQUEST_LOG_CAPACITY = 1000;

/**
 * The most recent API requests, in a ring of fixed size (oldest first), and counts of every
 * request since the last clear: a 100,000-track delivery's 4,000 requests keep memory bounded
 * and are still counted.
 */
export class RequestLog {
  private readonly ring: LoggedRequest[] = [];
  private next = 0;
  private counts: RequestCounts = emptyCounts();

  constructor(private readonly capacity = REQUEST_LOG_CAPACITY) {}

  /** Records a request. */
  add(request: LoggedRequest): void {
    if (this.ring.length < this.capacity) this.ring.push(request);
    else this.ring[this.next] = request;
    this.next = (this.next + 1) % this.capacity;
    const counts = this.counts;
    counts.total += 1;
    // Paths are the client's to choose; past a bound, the rare ones share one count.
    const path =
      request.path in counts.by_path || Object.keys(counts.by_path).length < MAX_PATHS
        ? request.path
        : OTHER_PATHS;
    counts.by_path[path] = (counts.by_path[path] ?? 0) + 1;
    counts.by_status[request.status] = (counts.by_status[request.status] ?? 0) + 1;
    counts.tracks += request.tracks ?? 0;
  }

  /** The requests kept, oldest first. */
  list(): LoggedRequest[] {
    if (this.ring.length < this.capacity) return [...this.ring];
    return [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)];
  }

  /** Counts of every request since the last clear (kept or not). */
  summary(): RequestCounts {
    return structuredClone(this.counts);
  }

  /** Forgets every request. */
  clear(): void {
    this.ring.length = 0;
    this.next = 0;
    this.counts = emptyCounts();
  }
}

function emptyCounts(): RequestCounts {
  return { total: 0, by_path: {}, by_status: {}, tracks: 0 };
}
