/**
 * The one fake door of the renderer's tests: a `CourierApi` whose every operation answers
 * "<operation> is not part of this test" until the test fakes it, and whose events the test
 * sends as main would. A fake operation is typed by the contract, so changing a request or a
 * result breaks the tests that fake it; the defaults are listed by hand, so adding or removing
 * an operation breaks this file until it lists the contract's operations again.
 */
import {
  type CourierApi,
  type EventName,
  type EventPayloads,
  fail,
  type OperationName,
  operations,
} from '../../src-main/ipc/contract.js';

/** A fake door: the contract, plus what lets a test play main's part in events. */
export type FakeDoor = CourierApi & {
  /** Sends an event to its listeners, as main pushes one to the renderer. */
  emit<E extends EventName>(event: E, payload: EventPayloads[E]): void;
  /** How many listeners an event has now (an unsubscribed view leaves none). */
  listenerCount(event: EventName): number;
};

/** The code of the envelope an operation the test did not fake answers. */
export const NOT_FAKED = 'not-faked';

/** An operation the test did not fake: it answers an error envelope naming itself. */
const notFaked = (name: OperationName) => async () =>
  fail(NOT_FAKED, `${name} is not part of this test: fake it with fakeDoor({ ${name}: … }).`);

/** Every operation of the contract, unfaked. */
function unfakedOperations() {
  return {
    appInfo: notFaked('appInfo'),
    openLogs: notFaked('openLogs'),
    openDataFolder: notFaked('openDataFolder'),
    grantFiles: notFaked('grantFiles'),
    readFileTags: notFaked('readFileTags'),
    findDuplicateAudio: notFaked('findDuplicateAudio'),
    listProfiles: notFaked('listProfiles'),
    useProfile: notFaked('useProfile'),
    saveProfile: notFaked('saveProfile'),
    removeProfile: notFaked('removeProfile'),
    testProfile: notFaked('testProfile'),
    useSessionSecrets: notFaked('useSessionSecrets'),
    listTags: notFaked('listTags'),
    planDelivery: notFaked('planDelivery'),
    startDelivery: notFaked('startDelivery'),
    pauseDelivery: notFaked('pauseDelivery'),
    resumeDelivery: notFaked('resumeDelivery'),
    retryDelivery: notFaked('retryDelivery'),
    cancelDelivery: notFaked('cancelDelivery'),
    listDeliveries: notFaked('listDeliveries'),
    deliveryDetail: notFaked('deliveryDetail'),
    activeDeliveries: notFaked('activeDeliveries'),
    unfinishedDeliveries: notFaked('unfinishedDeliveries'),
    exportDeliveriesCsv: notFaked('exportDeliveriesCsv'),
    pickupDelivery: notFaked('pickupDelivery'),
    listBucket: notFaked('listBucket'),
    readBucketObject: notFaked('readBucketObject'),
    saveBucketObject: notFaked('saveBucketObject'),
    cancelBucketSave: notFaked('cancelBucketSave'),
    deleteBucketObject: notFaked('deleteBucketObject'),
    getSettings: notFaked('getSettings'),
    setSettings: notFaked('setSettings'),
    loadLibrary: notFaked('loadLibrary'),
    restorePreviousLibrary: notFaked('restorePreviousLibrary'),
    saveLibrary: notFaked('saveLibrary'),
    patchLibrary: notFaked('patchLibrary'),
    searchDeliveries: notFaked('searchDeliveries'),
    deliveredTrack: notFaked('deliveredTrack'),
    libraryRows: notFaked('libraryRows'),
    catalogLedger: notFaked('catalogLedger'),
    exportLedgerCsv: notFaked('exportLedgerCsv'),
    updateState: notFaked('updateState'),
    checkForUpdates: notFaked('checkForUpdates'),
    downloadUpdate: notFaked('downloadUpdate'),
    postponeUpdate: notFaked('postponeUpdate'),
    installUpdate: notFaked('installUpdate'),
  } satisfies Omit<CourierApi, 'on'>;
}

type Listener = (payload: never) => void;

/**
 * A door with the given operations faked (later ones can be set on it: `door.listTags = …`);
 * every other operation answers a `not-faked` error envelope.
 */
export function fakeDoor(overrides: Partial<CourierApi> = {}): FakeDoor {
  const listeners = new Map<EventName, Set<Listener>>();
  const door: FakeDoor = {
    ...unfakedOperations(),
    on(event, listener) {
      const set = listeners.get(event) ?? new Set<Listener>();
      listeners.set(event, set);
      set.add(listener);
      return () => void set.delete(listener);
    },
    emit(event, payload) {
      for (const listener of listeners.get(event) ?? []) {
        (listener as (payload: EventPayloads[typeof event]) => void)(payload);
      }
    },
    listenerCount: (event) => listeners.get(event)?.size ?? 0,
    ...overrides,
  };
  return door;
}

/**
 * Whether a value has the shape of the contract: one function per operation of `operations`
 * plus `on`, and nothing else. The preload's `window.courier` and the fake door both pass it.
 */
export function isCourierApi(value: unknown, extra: readonly string[] = []): value is CourierApi {
  if (typeof value !== 'object' || value === null) return false;
  const expected = [...Object.keys(operations), 'on', ...extra].sort();
  const keys = Object.keys(value).sort();
  return (
    keys.length === expected.length &&
    keys.every((key, index) => key === expected[index]) &&
    Object.values(value).every((member) => typeof member === 'function')
  );
}
