import type { BrowserWindowConstructorOptions } from 'electron';

/** Where the window was last time, when known. */
export interface WindowBounds {
  x?: number;
  y?: number;
  width: number;
  height: number;
}

/**
 * The main window's options: every item of Electron's security checklist that lives in
 * webPreferences is set explicitly here, so a default changing upstream can't weaken it.
 */
export function mainWindowOptions(input: {
  preload: string;
  bounds?: WindowBounds;
  devTools: boolean;
}): BrowserWindowConstructorOptions {
  return {
    width: 1280,
    height: 820,
    ...input.bounds,
    minWidth: 960,
    minHeight: 600,
    show: false,
    title: 'Catalog Courier',
    webPreferences: {
      preload: input.preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      safeDialogs: true,
      spellcheck: false,
      // A middle-click would open a link without going through the window-open handler's checks.
      disableBlinkFeatures: 'Auxclick',
      devTools: input.devTools,
    },
  };
}
