import { describe, expect, it } from 'vitest';

import { focusWindow, pathsFromArgv } from '../../../src-main/electron/single-instance.js';

describe('single instance', () => {
  describe('pathsFromArgv()', () => {
    it('keeps the paths of a packaged launch, resolved against its working directory', () => {
      expect(
        pathsFromArgv(
          ['/opt/Catalog Courier/courier', 'Album', '/music/Other Album/01.flac'],
          '/home/ana/masters',
        ),
      ).toEqual(['/home/ana/masters/Album', '/music/Other Album/01.flac']);
    });

    it('drops switches Electron adds, wherever they are, and the app folder in development', () => {
      expect(
        pathsFromArgv(
          [
            '/usr/bin/electron',
            '--allow-file-access-from-files',
            '.',
            '/music/a.flac',
            '--inspect',
          ],
          '/work/app',
          ['/work/app'],
        ),
      ).toEqual(['/music/a.flac']);
    });

    it('drops URLs, duplicates and anything with a NUL byte', () => {
      expect(
        pathsFromArgv(
          ['exe', 'courier://open', '/music/a.flac', '/music/./a.flac', '/music/b\0.flac'],
          '/',
        ),
      ).toEqual(['/music/a.flac']);
    });
  });

  describe('focusWindow()', () => {
    const window = (minimized: boolean, visible: boolean) => {
      const calls: string[] = [];
      return {
        calls,
        isMinimized: () => minimized,
        isVisible: () => visible,
        restore: () => void calls.push('restore'),
        show: () => void calls.push('show'),
        focus: () => void calls.push('focus'),
      };
    };

    it('restores a minimised window and focuses it', () => {
      const minimised = window(true, true);
      focusWindow(minimised);
      expect(minimised.calls).toEqual(['restore', 'focus']);
    });

    it('shows a hidden window', () => {
      const hidden = window(false, false);
      focusWindow(hidden);
      expect(hidden.calls).toEqual(['show', 'focus']);
    });

    it('does nothing before the window exists', () => {
      expect(() => focusWindow(undefined)).not.toThrow();
    });
  });
});
