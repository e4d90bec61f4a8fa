import { EventEmitter } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import {
  loadWindowState,
  type Rect,
  restoreBounds,
  saveWindowState,
  trackWindowState,
} from '../../../src-main/electron/window-state.js';

const laptop: Rect = { x: 0, y: 0, width: 1440, height: 875 };
const external: Rect = { x: 1440, y: 0, width: 2560, height: 1415 };

describe('window state', () => {
  describe('restoreBounds()', () => {
    it('lets Electron centre the default size when nothing was remembered', () => {
      expect(restoreBounds(undefined, [laptop])).toBeUndefined();
    });

    it('puts the window back where it was on a display that is still there', () => {
      const saved = { bounds: { x: 1600, y: 100, width: 1800, height: 1000 }, maximized: false };
      expect(restoreBounds(saved, [laptop, external])).toEqual(saved.bounds);
    });

    it('moves a window left on an unplugged monitor onto the primary display, fitted', () => {
      const saved = { bounds: { x: 1600, y: 100, width: 1800, height: 1000 }, maximized: false };
      const bounds = restoreBounds(saved, [laptop])!;
      expect(bounds.width).toBeLessThanOrEqual(laptop.width);
      expect(bounds.height).toBeLessThanOrEqual(laptop.height);
      expect(bounds.x).toBeGreaterThanOrEqual(0);
      expect(bounds.y).toBeGreaterThanOrEqual(0);
    });

    it('rescues a window whose title bar is above the top of every display', () => {
      const saved = { bounds: { x: 100, y: -500, width: 1200, height: 800 }, maximized: false };
      expect(restoreBounds(saved, [laptop])).toMatchObject({ y: expect.any(Number) });
      expect(restoreBounds(saved, [laptop])!.y).toBeGreaterThanOrEqual(0);
    });

    it('never restores below the minimum size', () => {
      const saved = { bounds: { x: 0, y: 0, width: 200, height: 100 }, maximized: false };
      expect(restoreBounds(saved, [laptop])).toMatchObject({ width: 960, height: 600 });
    });
  });

  describe('loadWindowState() and saveWindowState()', () => {
    let home: string;
    beforeAll(async () => {
      home = await mkdtemp(join(tmpdir(), 'courier-window-'));
    });
    afterAll(() => rm(home, { recursive: true, force: true }));

    it('round-trips the state through window-state.json in the data directory', async () => {
      const state = { bounds: { x: 10, y: 20, width: 1300, height: 900 }, maximized: true };
      await saveWindowState(home, state);
      expect(JSON.parse(await readFile(join(home, 'window-state.json'), 'utf8'))).toEqual(state);
      expect(await loadWindowState(home)).toEqual(state);
    });

    it('ignores a damaged file instead of failing to open the window', async () => {
      await writeFile(join(home, 'window-state.json'), '{"bounds": {"x": "left"');
      expect(await loadWindowState(home)).toBeUndefined();
      await writeFile(join(home, 'window-state.json'), '{"bounds": {"x": "left"}}');
      expect(await loadWindowState(home)).toBeUndefined();
    });
  });

  describe('trackWindowState()', () => {
    it('saves once after the window stops moving, and flushes on demand', async () => {
      const window = Object.assign(new EventEmitter(), {
        bounds: { x: 0, y: 0, width: 1000, height: 700 },
        getNormalBounds() {
          return this.bounds;
        },
        isMaximized: () => false,
      });
      const saved: unknown[] = [];
      const flush = trackWindowState(window, async (state) => void saved.push(state), 10_000);
      window.emit('move');
      window.bounds = { x: 50, y: 60, width: 1000, height: 700 };
      window.emit('resize');
      expect(saved).toEqual([]);
      await flush();
      expect(saved).toEqual([
        { bounds: { x: 50, y: 60, width: 1000, height: 700 }, maximized: false },
      ]);
      window.emit('close');
      await flush();
      expect(saved).toHaveLength(2);
    });
  });
});
