import { contextBridge, ipcRenderer, webUtils } from 'electron';

import { createPreloadApi } from './preload-api.js';

contextBridge.exposeInMainWorld('courier', createPreloadApi(ipcRenderer, webUtils));
