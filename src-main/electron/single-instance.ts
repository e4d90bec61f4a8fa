/**
 * One Courier at a time: a second launch (a double-click, files dropped on the dock or taskbar
 * icon, `Catalog Courier /music/album`) hands its paths to the running app and exits.
 */
import { isAbsolute, resolve } from 'node:path';

/**
 * The file and folder paths in a second instance's command line, absolute and deduplicated.
 * Electron appends its own switches and may reorder arguments, so flags are dropped wherever
 * they are, as are the executable and the app folder (`electron .` in development).
 */
export function pathsFromArgv(
  argv: readonly string[],
  workingDirectory: string,
  ignore: readonly string[] = [],
): string[] {
  const ignored = new Set(ignore.map((path) => resolve(workingDirectory, path)));
  const paths: string[] = [];
  for (const [index, arg] of argv.entries()) {
    if (index === 0 || arg === '' || arg.startsWith('-') || arg.includes('\0')) continue;
    // A URL (a future `courier://` link) is not a path.
    if (/^[a-z][a-z0-9+.-]+:\/\//i.test(arg)) continue;
    const path = isAbsolute(arg) ? resolve(arg) : resolve(workingDirectory, arg);
    if (ignored.has(path) || paths.includes(path)) continue;
    paths.push(path);
  }
  return paths;
}

/** The part of a BrowserWindow that focusing needs. */
export interface FocusableWindow {
  isMinimized(): boolean;
  restore(): void;
  isVisible(): boolean;
  show(): void;
  focus(): void;
}

/** Brings the app's window to the front, restoring it when minimised or hidden. */
export function focusWindow(window: FocusableWindow | undefined): void {
  if (!window) return;
  if (window.isMinimized()) window.restore();
  if (!window.isVisible()) window.show();
  window.focus();
}
