/**
 * The contract's update operations over core's UpdateService. A door without one (the browser
 * host) answers every operation with the state saying updates are the desktop app's.
 */
import type { UpdateService } from '../core/updates/update-service.js';
import { UPDATES_ELSEWHERE, type UpdateState } from '../core/updates/update-state.js';
import type { RequestOf, ResultOf } from './contract.js';

type Names =
  'updateState' | 'checkForUpdates' | 'downloadUpdate' | 'postponeUpdate' | 'installUpdate';
type Handlers = { [N in Names]: (request: RequestOf<N>) => Promise<ResultOf<N>> };

/** The handlers for the update prompt, for the router. */
export function updateHandlers(updates: UpdateService | undefined): Handlers {
  if (!updates) {
    const elsewhere = async (): Promise<UpdateState> => ({
      phase: 'unsupported',
      message: UPDATES_ELSEWHERE,
    });
    return {
      updateState: elsewhere,
      checkForUpdates: elsewhere,
      downloadUpdate: elsewhere,
      postponeUpdate: elsewhere,
      installUpdate: elsewhere,
    };
  }
  return {
    updateState: async () => updates.state,
    checkForUpdates: () => updates.check({ manual: true }),
    // The download runs on; its progress and its end reach the renderer as `updates:state`.
    downloadUpdate: async () => {
      void updates.download();
      return updates.state;
    },
    postponeUpdate: () => updates.later(),
    installUpdate: async () => updates.install(),
  };
}
