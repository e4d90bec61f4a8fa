/**
 * Where the main window was: remembered in `window-state.json` in the data directory and put
 * back on a display that is still there (a window restored onto an unplugged monitor is lost).
 */
import { join } from 'node:path';

import { readJsonIfExists, writeJsonAtomic } from '../core/files/atomic-file.js';
import type { WindowBounds } from './window-options.js';

/** A display's usable area (Electron's `Display.workArea`). */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** What is persisted between runs. */
export interface WindowState {
  bounds: Rect;
  maximized: boolean;
}

export const MIN_SIZE = { width: 960, height: 600 } as const;
const FILE = 'window-state.json';
/** How much of the title bar must sit on a display for the user to grab it. */
const GRAB = { width: 120, height: 40 };

function overlap(a: Rect, b: Rect): Rect {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  return {
    x,
    y,
    width: Math.max(0, Math.min(a.x + a.width, b.x + b.width) - x),
    height: Math.max(0, Math.min(a.y + a.height, b.y + b.height) - y),
  };
}

function isRect(value: unknown): value is Rect {
  const rect = value as Partial<Rect> | null;
  return (
    !!rect &&
    [rect.x, rect.y, rect.width, rect.height].every((n) => typeof n === 'number' && isFinite(n))
  );
}

/**
 * The bounds to open the window with: the remembered ones when enough of the title bar is on
 * some display, otherwise the same size moved onto the primary display (shrunk to fit it);
 * no remembered state gives the default size, centred by Electron.
 */
export function restoreBounds(
  saved: WindowState | undefined,
  workAreas: readonly Rect[],
): WindowBounds | undefined {
  if (!saved || !isRect(saved.bounds)) return undefined;
  const primary = workAreas[0];
  const width = Math.max(MIN_SIZE.width, Math.round(saved.bounds.width));
  const height = Math.max(MIN_SIZE.height, Math.round(saved.bounds.height));
  const bounds = { x: Math.round(saved.bounds.x), y: Math.round(saved.bounds.y), width, height };
  const titleBar = { x: bounds.x, y: bounds.y, width: bounds.width, height: GRAB.height };
  const visible = workAreas.some((area) => {
    const shown = overlap(titleBar, area);
    return shown.width >= Math.min(GRAB.width, bounds.width) && shown.height >= GRAB.height;
  });
  if (visible || !primary) return bounds;
  const fitted = {
    width: Math.min(width, Math.max(MIN_SIZE.width, primary.width)),
    height: Math.min(height, Math.max(MIN_SIZE.height, primary.height)),
  };
  return {
    x: primary.x + Math.max(0, Math.round((primary.width - fitted.width) / 2)),
    y: primary.y + Math.max(0, Math.round((primary.height - fitted.height) / 2)),
    ...fitted,
  };
}

/** The remembered state, or undefined when there is none or it is unreadable. */
export async function loadWindowState(dataDir: string): Promise<WindowState | undefined> {
  const saved = await readJsonIfExists<WindowState>(join(dataDir, FILE)).catch(() => undefined);
  if (!saved || !isRect(saved.bounds)) return undefined;
  return { bounds: saved.bounds, maximized: saved.maximized === true };
}

/** Persists the state atomically, so a crash mid-write leaves the previous one. */
export async function saveWindowState(dataDir: string, state: WindowState): Promise<void> {
  await writeJsonAtomic(join(dataDir, FILE), state);
}

/** The part of a BrowserWindow the tracker reads. */
export interface TrackedWindow {
  on(event: 'resize' | 'move' | 'close', listener: () => void): unknown;
  getNormalBounds(): Rect;
  isMaximized(): boolean;
}

/**
 * Saves the window's state a moment after it stops moving or resizing, and once more on close.
 * Returns a function that flushes a pending save (awaited on quit).
 */
export function trackWindowState(
  window: TrackedWindow,
  save: (state: WindowState) => Promise<void>,
  delayMs = 500,
): () => Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let last: Promise<void> = Promise.resolve();
  const capture = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const state = { bounds: window.getNormalBounds(), maximized: window.isMaximized() };
    // A failed save only loses the position; it must never break the app.
    last = last.then(() => save(state)).catch(() => undefined);
    return last;
  };
  const schedule = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => void capture(), delayMs);
  };
  window.on('resize', schedule);
  window.on('move', schedule);
  window.on('close', () => void capture());
  return () => (timer ? capture() : last);
}
