import { describe, expect, it } from 'vitest';

import { mainWindowOptions } from '../../../src-main/electron/window-options.js';

describe('mainWindowOptions()', () => {
  const options = mainWindowOptions({ preload: '/app/preload.cjs', devTools: false });
  const prefs = options.webPreferences!;

  it('isolates the renderer: context isolation, sandbox, no Node anywhere', () => {
    expect(prefs.contextIsolation).toBe(true);
    expect(prefs.sandbox).toBe(true);
    expect(prefs.nodeIntegration).toBe(false);
    expect(prefs.nodeIntegrationInWorker).toBe(false);
    expect(prefs.nodeIntegrationInSubFrames).toBe(false);
  });

  it('keeps web security on and the risky features off', () => {
    expect(prefs.webSecurity).toBe(true);
    expect(prefs.allowRunningInsecureContent).toBe(false);
    expect(prefs.experimentalFeatures).toBe(false);
    expect(prefs.webviewTag).toBe(false);
    expect(prefs.navigateOnDragDrop).toBe(false);
  });

  it('loads the preload it is given and hides dev tools when asked', () => {
    expect(prefs.preload).toBe('/app/preload.cjs');
    expect(prefs.devTools).toBe(false);
  });

  it('restores remembered bounds but never below the minimum size', () => {
    const restored = mainWindowOptions({
      preload: '/p',
      devTools: true,
      bounds: { x: 10, y: 20, width: 1500, height: 900 },
    });
    expect(restored).toMatchObject({ x: 10, y: 20, width: 1500, height: 900, minWidth: 960 });
  });
});
