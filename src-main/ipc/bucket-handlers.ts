/**
 * The contract's bucket and settings operations: browsing the delivery bucket over the
 * profile's S3 credentials (core/bucket) and the app's settings (core/settings).
 */
import { deleteObject, listBucket, readObject } from '../core/bucket/bucket-browser.js';
import { downloadFileName, saveObjectToFile } from '../core/bucket/bucket-download.js';
import { withProfileBucket } from '../core/bucket/profile-bucket.js';
import { CourierError } from '../core/errors.js';
import type { CoreServices } from '../core/services.js';
import { SettingsStore } from '../core/settings/settings-store.js';
import type { EventName, EventPayloads, RequestOf, ResultOf } from './contract.js';
import { progressPace } from './progress-pace.js';
import type { HostAdapter } from './router.js';

type Names =
  | 'listBucket'
  | 'readBucketObject'
  | 'saveBucketObject'
  | 'cancelBucketSave'
  | 'deleteBucketObject'
  | 'getSettings'
  | 'setSettings';
type Handlers = { [N in Names]: (request: RequestOf<N>) => Promise<ResultOf<N>> };
type Emit = <E extends EventName>(event: E, payload: EventPayloads[E]) => void;

/** Text previews (INFO.json, a CSV export's first rows) are cut at this size. */
const PREVIEW_BYTES = 256 * 1024;

/**
 * The handlers for the bucket and settings domains, for the router, and `close`, which stops
 * the downloads still running and waits until each has removed its partial file.
 */
export function bucketHandlers(
  services: CoreServices,
  host: Pick<HostAdapter, 'chooseSavePath' | 'offerDownload'>,
  emit: Emit,
): { handlers: Handlers; close(): Promise<void> } {
  const settings = new SettingsStore(services.dataDir);
  const withBucket = <T>(
    profile: string,
    work: Parameters<typeof withProfileBucket<T>>[2],
  ): Promise<T> => withProfileBucket(services.connections, profile, work);
  /** Saves in progress, by profile and key, so the renderer can cancel one and a quit all. */
  const saving = new Map<string, { controller: AbortController; done: Promise<unknown> }>();
  const saveId = (profile: string, key: string) => JSON.stringify([profile, key]);

  const handlers: Handlers = {
    async listBucket({ profile, prefix }) {
      return withBucket(profile, (s3, bucket) => listBucket(s3, bucket, prefix));
    },
    async readBucketObject({ profile, key }) {
      return withBucket(profile, async (s3, bucket) => {
        const { bytes, size, truncated } = await readObject(s3, bucket, key, PREVIEW_BYTES);
        return { key, size, text: new TextDecoder().decode(bytes), truncated };
      });
    },
    async saveBucketObject({ profile, key }) {
      if (host.offerDownload) {
        return { key, outcome: 'browser', url: host.offerDownload(profile, key) };
      }
      if (!host.chooseSavePath) {
        throw new CourierError('unsupported', 'This door cannot save files.');
      }
      const id = saveId(profile, key);
      if (saving.has(id)) throw new CourierError('busy', `${key} is already being downloaded.`);
      const path = await host.chooseSavePath(downloadFileName(key));
      if (!path) return { key, outcome: 'canceled' };
      const controller = new AbortController();
      const pace = progressPace();
      const done = withBucket(profile, (s3, bucket) =>
        saveObjectToFile(s3, bucket, key, path, {
          signal: controller.signal,
          onProgress: ({ receivedBytes, totalBytes }) => {
            if (pace(receivedBytes, totalBytes)) {
              emit('bucket:save-progress', { key, receivedBytes, totalBytes });
            }
          },
        }),
      );
      saving.set(id, { controller, done });
      try {
        const { size } = await done;
        return { key, outcome: 'saved', path, size };
      } finally {
        saving.delete(id);
      }
    },
    async cancelBucketSave({ profile, key }) {
      const save = saving.get(saveId(profile, key));
      save?.controller.abort();
      return { canceled: save !== undefined };
    },
    async deleteBucketObject({ profile, key }) {
      await withBucket(profile, (s3, bucket) => deleteObject(s3, bucket, key));
      return { deleted: true };
    },
    async getSettings() {
      return settings.get();
    },
    async setSettings(change) {
      return settings.set(change);
    },
  };

  return {
    handlers,
    async close() {
      const running = [...saving.values()];
      for (const save of running) save.controller.abort();
      await Promise.allSettled(running.map((save) => save.done));
    },
  };
}
