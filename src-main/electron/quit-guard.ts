import type { MessageBoxOptions } from 'electron';

/** What quitting needs from the rest of the app; main supplies Electron's and core's. */
export interface QuitSteps {
  /** How many transfers are running or paused right now. */
  activeTransfers(): number;
  /** Asks the user whether to quit anyway; true to quit. */
  confirm(active: number): Promise<boolean>;
  /** Pauses every transfer at a part boundary and flushes its journal. */
  pauseAndFlush(): Promise<void>;
  /** Everything else that must end before exit: connections (the sandbox), window state, logs. */
  cleanup(): Promise<void>;
  /** Quits for real (main calls `app.quit()` again, which the guard now lets through). */
  quit(): void;
  /** A step failed; quitting goes on (journals are durable per part, a resume finds them). */
  onError(step: 'pause' | 'cleanup', error: unknown): void;
}

export type QuitPhase = 'running' | 'asking' | 'stopping' | 'done';

/** How long pausing and cleaning up may take before the app quits anyway. */
export const QUIT_DEADLINE_MS = 15_000;

/**
 * The quit sequence as a state machine: a quit requested while transfers are active asks first;
 * "quit" then pauses them cleanly and flushes journals, closes connections (which stops the
 * embedded sandbox), and only then lets Electron quit. Repeated requests while it is asking or
 * stopping are absorbed; "keep transferring" goes back to running.
 */
export class QuitGuard {
  #phase: QuitPhase = 'running';

  constructor(
    private readonly steps: QuitSteps,
    private readonly deadlineMs = QUIT_DEADLINE_MS,
  ) {}

  get phase(): QuitPhase {
    return this.#phase;
  }

  /**
   * Call from `before-quit`: true when Electron may quit now; false means prevent it (the guard
   * calls `quit()` itself when ready).
   */
  request(): boolean {
    if (this.#phase === 'done') return true;
    if (this.#phase === 'running') void this.#run();
    return false;
  }

  async #run(): Promise<void> {
    const active = this.steps.activeTransfers();
    if (active > 0) {
      this.#phase = 'asking';
      const quit = await this.steps.confirm(active).catch(() => false);
      if (!quit) {
        this.#phase = 'running';
        return;
      }
    }
    this.#phase = 'stopping';
    if (this.steps.activeTransfers() > 0)
      await this.#step('pause', () => this.steps.pauseAndFlush());
    await this.#step('cleanup', () => this.steps.cleanup());
    this.#phase = 'done';
    this.steps.quit();
  }

  async #step(name: 'pause' | 'cleanup', work: () => Promise<void>): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${name} took longer than ${this.deadlineMs} ms`)),
        this.deadlineMs,
      );
    });
    try {
      await Promise.race([work(), deadline]);
    } catch (error) {
      this.steps.onError(name, error);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** The question asked when the user quits with transfers running. */
export function quitDialogOptions(active: number): MessageBoxOptions {
  const what = active === 1 ? 'A delivery is' : `${active} deliveries are`;
  return {
    type: 'question',
    buttons: ['Pause and Quit', 'Keep Transferring'],
    defaultId: 1,
    cancelId: 1,
    noLink: true,
    message: `${what} still running. Quit Catalog Courier?`,
    detail:
      'Uploads pause at the next part and resume where they stopped the next time you open the app.',
  };
}
