/**
 * The contract's delivery operations: each turns its request into a call of the one delivery
 * service (`core/delivery/delivery-service.ts`) and its answer into the contract's result. Runs go
 * on in the background; the service's state changes and throttled progress reach the renderer as
 * `delivery:state` and `delivery:progress` events.
 */
import {
  type DeliveryRequest,
  DeliveryService,
  type PlannedDelivery,
} from '../core/delivery/delivery-service.js';
import type { DeliveryEvent } from '../core/delivery/run-delivery.js';
import { artistIdsLine } from '../core/model/artist-ids.js';
import type { CoreServices } from '../core/services.js';
import type {
  DeliveryPlanView,
  EventName,
  EventPayloads,
  RequestOf,
  ResultOf,
} from './contract.js';

type Names =
  | 'planDelivery'
  | 'startDelivery'
  | 'pauseDelivery'
  | 'resumeDelivery'
  | 'retryDelivery'
  | 'cancelDelivery'
  | 'listDeliveries'
  | 'deliveryDetail'
  | 'activeDeliveries'
  | 'unfinishedDeliveries'
  | 'exportDeliveriesCsv'
  | 'pickupDelivery'
  | 'searchDeliveries'
  | 'deliveredTrack';
type Handlers = { [N in Names]: (request: RequestOf<N>) => Promise<ResultOf<N>> };
type Emit = <E extends EventName>(event: E, payload: EventPayloads[E]) => void;

/** How many requests (with their answers) one page of a delivery's detail carries by default. */
const DETAIL_PAGE = 100;

/** The most tracks one search shows in History (a narrower query finds the rest). */
const SEARCH_LIMIT = 200;

/** What the shell (Electron) does with running deliveries: OS progress, keep-awake, quit. */
export interface TransferHooks {
  event(id: string, label: string, event: DeliveryEvent): void;
  onStop(id: string, stop: () => Promise<void>): void;
}

/** The handlers for the delivery domain, for the router. */
export function deliveryHandlers(
  services: CoreServices,
  emit: Emit,
  hooks?: TransferHooks,
): Handlers {
  const started = new Set<string>();
  const deliveries: DeliveryService = new DeliveryService(
    services,
    {
      event: (id, label, event) => hooks?.event(id, label, event),
      state: (state) => {
        if (state.running && !started.has(state.id)) {
          started.add(state.id);
          hooks?.onStop(state.id, () => deliveries.stop(state.id));
        }
        if (!state.running) started.delete(state.id);
        emit('delivery:state', state);
      },
      progress: (progress) => emit('delivery:progress', progress),
    },
    'the Courier app',
  );

  return {
    async planDelivery(request) {
      return planView(await deliveries.plan(requestOf(request)));
    },
    async startDelivery({ confirmProduction, confirmRemovals, ...request }) {
      const run = await deliveries.start(requestOf(request), {
        ...(confirmProduction ? { confirmProduction } : {}),
        ...(confirmRemovals ? { confirmRemovals } : {}),
      });
      return { id: run.id };
    },
    async pauseDelivery({ id }) {
      deliveries.pause(id);
      return { id, paused: true };
    },
    async resumeDelivery({ id }) {
      await deliveries.resume(id);
      return { id, paused: false };
    },
    async retryDelivery({ id, keys }) {
      const files = await deliveries.retryCount(id, keys);
      await deliveries.retry(id, keys);
      return { id, files };
    },
    async cancelDelivery({ id }) {
      await deliveries.cancel(id);
      return { id, canceled: true };
    },
    async listDeliveries() {
      return { deliveries: await deliveries.history() };
    },
    async deliveryDetail({ id, offset, limit }) {
      return deliveries.detail(id, {
        ...(offset !== undefined ? { offset } : {}),
        limit: limit ?? DETAIL_PAGE,
      });
    },
    async activeDeliveries() {
      return { transfers: deliveries.active() };
    },
    async unfinishedDeliveries() {
      return { deliveries: await deliveries.unfinished() };
    },
    async exportDeliveriesCsv() {
      const stamp = new Date().toISOString().slice(0, 10);
      return { fileName: `courier-history-${stamp}.csv`, csv: await deliveries.historyCsv() };
    },
    async pickupDelivery({ id }) {
      return { id, ...(await deliveries.pickup(id)) };
    },
    async searchDeliveries({ query }) {
      // Bodies come one at a time (deliveredTrack), as the user opens a track.
      return deliveries.search(query, { limit: SEARCH_LIMIT, bodies: false });
    },
    async deliveredTrack({ id, outer_id }) {
      return { id, track: await deliveries.deliveredTrack(id, outer_id) };
    },
  };
}

/** The Deliver view's request as the service takes it. */
function requestOf({ files, ...request }: RequestOf<'planDelivery'>): DeliveryRequest {
  return { ...request, source: { kind: 'library', files } };
}

/** The pre-flight summary the Deliver view shows. */
function planView({
  plan,
  profile,
  idOfPath,
  nothingChanged,
  leftOutLine,
}: PlannedDelivery): DeliveryPlanView {
  const r = plan.record;
  const idOf = (path: string | undefined) => (path ? idOfPath?.get(path) : undefined);
  const withId = <T extends { path?: string }>(item: T): T & { fileId?: string } => {
    const fileId = idOf(item.path);
    return { ...item, ...(fileId ? { fileId } : {}) };
  };
  const catalog = plan.catalog;
  const first = r.tracks?.[0]?.[0];
  const artistIds = artistIdsLine(r.tracks?.flat() ?? []);
  return {
    profile: { name: profile.name, environment: profile.environment },
    catalog: {
      id: r.catalogId,
      name: profile.catalogs.find((c) => c.id === r.catalogId)?.name ?? r.catalogId,
    },
    mode: r.mode,
    folder: r.folder,
    files: r.files.length,
    ...(leftOutLine ? { leftOut: leftOutLine } : {}),
    tracks: r.tracks?.reduce((n, b) => n + b.length, 0) ?? r.files.length,
    bytes: r.bytes.total,
    requests: r.batches.length,
    options: r.options,
    ...(r.mapping ? { mappingYaml: r.mapping.yaml } : {}),
    findings: plan.findings.map(withId),
    blocked: plan.blocked,
    production: profile.environment === 'production',
    ...(catalog
      ? {
          standing: {
            counts: catalog.counts,
            albums: catalog.albums,
            tracks: catalog.tracks.map((t) => withId({ fields: [], removed: [], ...t })),
            gone: catalog.gone,
            removals: catalog.removals.map(withId),
          },
        }
      : {}),
    ...(first && !nothingChanged ? { sample: JSON.stringify(first, null, 2) } : {}),
    ...(artistIds ? { artistIds } : {}),
    ...(nothingChanged ? { nothingChanged: nothingChanged.message } : {}),
  };
}
