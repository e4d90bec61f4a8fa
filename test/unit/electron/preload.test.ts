import { describe, expect, it } from 'vitest';

import { blobProof } from '../../../src-main/core/model/file-proof.js';
import { operations } from '../../../src-main/ipc/contract.js';
import { isCourierApi } from '../../fakes/courier-door.js';
import { contextBridge, ipcRenderer } from '../../fakes/electron.js';

await import('../../../src-main/electron/preload.js');
const exposed = contextBridge.exposed.courier;
if (!isCourierApi(exposed))
  throw new Error('The preload does not expose the contract as `courier`.');
const api = exposed;

describe('the preload', () => {
  it('exposes one object, `courier`, and nothing else', () => {
    expect(Object.keys(contextBridge.exposed)).toEqual(['courier']);
  });

  it('has one method per operation plus `on`, and never ipcRenderer', () => {
    expect(Object.keys(api).sort()).toEqual([...Object.keys(operations), 'on'].sort());
    expect(isCourierApi(api)).toBe(true);
    expect(Object.values(api).every((value) => typeof value === 'function')).toBe(true);
    expect(Object.values(api)).not.toContain(ipcRenderer);
    expect(Object.isFrozen(api)).toBe(true);
  });

  it('sends each operation on its contract channel', async () => {
    ipcRenderer.invocations.length = 0;
    await api.appInfo({});
    expect(ipcRenderer.invocations).toEqual([['app:info', {}]]);
  });

  it('attaches the real path and the content proof of a dropped file, only the proof for a file made in the page', async () => {
    ipcRenderer.invocations.length = 0;
    const dropped = Object.assign(new File(['abc'], 'a.flac', { lastModified: 1000.6 }), {
      path: '/music/a.flac',
    });
    const forged = new File(['abc'], 'b.flac', { lastModified: 1000 });
    const proof = await blobProof(new Blob(['abc']));
    await api.grantFiles([
      { file: dropped, relativePath: 'Album/a.flac' },
      { file: forged, relativePath: 'b.flac' },
    ]);
    expect(ipcRenderer.invocations).toEqual([
      [
        'files:grant',
        {
          files: [
            {
              name: 'a.flac',
              relativePath: 'Album/a.flac',
              size: 3,
              lastModified: 1000,
              proof,
              path: '/music/a.flac',
            },
            { name: 'b.flac', relativePath: 'b.flac', size: 3, lastModified: 1000, proof },
          ],
        },
      ],
    ]);
  });

  it('delivers events without Electron’s event object and unsubscribes', () => {
    const received: unknown[] = [];
    const unsubscribe = api.on('app:notice', (payload) => received.push(payload));
    ipcRenderer.emitFromMain('app:notice', { level: 'info', message: 'hello' });
    unsubscribe();
    ipcRenderer.emitFromMain('app:notice', { level: 'info', message: 'again' });
    expect(received).toEqual([{ level: 'info', message: 'hello' }]);
    expect(ipcRenderer.listenerCount('app:notice')).toBe(0);
  });

  it('refuses to listen on a channel that is not a contract event', () => {
    expect(() => api.on('files:grant' as never, () => undefined)).toThrow(/Unknown event/);
  });
});
