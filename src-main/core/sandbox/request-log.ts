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

/** The most recent API requests (a ring of fixed size, oldest first). */
export class RequestLog {
  private readonly items: LoggedRequest[] = [];

  constructor(private readonly capacity = 1000) {}

  /** Records a request. */
  add(request: LoggedRequest): void {
    this.items.push(request);
    if (this.items.length > this.capacity) this.items.splice(0, this.items.length - this.capacity);
  }

  /** The recorded requests, oldest first. */
  list(): LoggedRequest[] {
    return [...this.items];
  }

  /** Forgets every request. */
  clear(): void {
    this.items.length = 0;
  }
}
