/**
 * Undo and redo as commands: an edit records, per track, the draft before and after, so undoing
 * restores exactly what was there (untouched tracks and fields are never rewritten); a command
 * that removes rows (Clear, Remove) records the rows and where they stood.
 */
import type { DraftTrack } from '../../src-main/core/model/track.js';

/** One track's change within a command. */
export interface DraftChange {
  id: string;
  before: DraftTrack;
  after: DraftTrack;
}

/** One user action: a label ("Edit Title", "Paste 12 cells") and its changes. */
export interface EditCommand {
  label: string;
  changes: DraftChange[];
}

/** A bounded stack of commands with a redo side that the next new command clears. */
export class UndoStack<C extends { label: string } = EditCommand> {
  #done: C[] = [];
  #undone: C[] = [];

  constructor(private readonly limit = 500) {}

  /** Records a command that has just been applied. */
  push(command: C): void {
    this.#done.push(command);
    if (this.#done.length > this.limit) this.#done.shift();
    this.#undone = [];
  }

  /** The command to revert, moved to the redo side; undefined when there is none. */
  undo(): C | undefined {
    const command = this.#done.pop();
    if (command) this.#undone.push(command);
    return command;
  }

  /** The command to apply again, moved back to the undo side. */
  redo(): C | undefined {
    const command = this.#undone.pop();
    if (command) this.#done.push(command);
    return command;
  }

  get undoLabel(): string | undefined {
    return this.#done.at(-1)?.label;
  }

  get redoLabel(): string | undefined {
    return this.#undone.at(-1)?.label;
  }

  /** Forgets everything (the library was cleared). */
  clear(): void {
    this.#done = [];
    this.#undone = [];
  }
}
