import { type Connection, openConnection } from './connection.js';
import type { NetworkTimeouts } from './network/timeouts.js';
import type { ProfileStore } from './profiles/profile-store.js';

/**
 * The open connections of a long-running door (the app, the browser host): one per profile,
 * kept while it is used so the token and the embedded sandbox live as long as the app.
 */
export class ConnectionPool {
  readonly #open = new Map<string, Promise<Connection>>();

  constructor(
    private readonly profiles: ProfileStore,
    private readonly dataDir: string,
    private readonly timeouts?: Partial<NetworkTimeouts>,
  ) {}

  /** The connection of a profile, opened on first use. */
  get(name: string): Promise<Connection> {
    let connection = this.#open.get(name);
    if (!connection) {
      connection = openConnection(this.profiles, this.dataDir, name, this.timeouts);
      // A failed open is not cached: the next call tries again (e.g. after fixing a secret).
      connection.catch(() => this.#open.delete(name));
      this.#open.set(name, connection);
    }
    return connection;
  }

  /** Closes a profile's connection, so its next use picks up a changed profile or secret. */
  async forget(name: string): Promise<void> {
    const connection = this.#open.get(name);
    this.#open.delete(name);
    await (await connection?.catch(() => null))?.close();
  }

  /** Closes every connection (on quit). */
  async closeAll(): Promise<void> {
    await Promise.all([...this.#open.keys()].map((name) => this.forget(name)));
  }
}
