import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';

import {
  type CatalogLedgerView,
  type DeliveryDetail,
  type DeliveryHistoryItem,
  fail,
  type HistorySearchResult,
  ok,
  type ProfileSummary,
} from '../../src-main/ipc/contract.js';
import { fakeDoor } from '../../test/fakes/courier-door.js';
import { HistoryState } from '../state/history-state.svelte.js';
import HistoryView from './HistoryView.svelte';

const body = { outer_id: 'LT-2', primary_media: 'f/02.mp3', title: 'Drift', isrc: 'GBAYE2100102' };
const found: HistorySearchResult = {
  query: 'gbaye2100102',
  tracks: 1,
  truncated: false,
  deliveries: [
    {
      id: '20260301-100000-abcdef',
      state: 'accepted',
      profile: 'Label',
      environment: 'development',
      catalog_id: 'cat-1',
      catalog_name: 'Main Catalog',
      mode: 'json',
      folder: '20260301-low-tide',
      created_at: '2026-03-01T10:00:00.000Z',
      finished_at: '2026-03-01T10:01:00.000Z',
      tracks: [
        {
          outer_id: 'LT-2',
          title: 'Drift',
          isrc: 'GBAYE2100102',
          request_index: 0,
          request_state: 'accepted',
          matched: ['isrc'],
        },
      ],
    },
  ],
};
const row = (outerId: string, title: string) => ({
  outer_id: outerId,
  title,
  isrc: '',
  artists: 'Mara Quinn',
  mode: 'json' as const,
  audio: `f/${outerId}.mp3`,
  file: `${outerId}.mp3`,
  local_path: `/m/${outerId}.mp3`,
  md5: 'a'.repeat(32),
  size: 10,
  delivery: '20260301-100000-abcdef',
  delivered_at: '2026-03-01T10:01:00.000Z',
});
const profiles = [
  { name: 'Label', catalogs: [{ id: 'cat-1', name: 'Main Catalog' }] },
  {
    name: 'Sandbox',
    catalogs: [
      { id: 'sb-1', name: 'Sandbox Main' },
      { id: 'sb-2', name: 'Sandbox Back' },
    ],
  },
] as ProfileSummary[];

/** History over a fake door that records the requests made. */
function setup() {
  const calls: Array<[string, unknown]> = [];
  const api = fakeDoor({
    listDeliveries: async () => ok({ deliveries: [] }),
    async searchDeliveries(request) {
      calls.push(['search', request]);
      return request.query === 'boom' ? fail('usage', 'the search is empty') : ok(found);
    },
    async deliveredTrack(request) {
      calls.push(['track', request]);
      return ok({ id: request.id, track: { ...found.deliveries[0]!.tracks[0]!, body } });
    },
    async catalogLedger(request) {
      calls.push(['ledger', request]);
      const view: CatalogLedgerView = {
        profile: request.profile,
        catalog_id: request.catalogId,
        catalog_name: request.catalogId === 'sb-2' ? 'Sandbox Back' : 'Sandbox Main',
        total: request.catalogId === 'sb-2' ? 0 : 2,
        entries: request.catalogId === 'sb-2' ? [] : [row('A', 'Opening'), row('B', 'Drift')],
      };
      return ok(view);
    },
    async exportLedgerCsv(request) {
      calls.push(['export', request]);
      return ok({ fileName: 'courier-ledger.csv', csv: 'outer_id\r\n', rows: 2 });
    },
  });
  const history = new HistoryState(api);
  render(HistoryView, { history, profiles, activeProfile: 'Sandbox' });
  return { calls, history };
}

describe('History', () => {
  afterEach(() => cleanup());

  it('searches by ISRC and shows the one track found with its body as sent', async () => {
    const { calls } = setup();
    await fireEvent.input(screen.getByRole('searchbox', { name: 'ISRC, outer_id or title' }), {
      target: { value: ' gbaye2100102 ' },
    });
    await fireEvent.submit(screen.getByRole('search'));
    const results = within(await screen.findByTestId('search-results'));
    expect(results.getByText('1 track in 1 delivery')).toBeTruthy();
    const pre = await results.findByTestId('body-as-sent');
    expect(JSON.parse(pre.textContent!)).toEqual(body);
    expect(calls).toEqual([
      ['search', { query: 'gbaye2100102' }],
      ['track', { id: '20260301-100000-abcdef', outer_id: 'LT-2' }],
    ]);
    await fireEvent.click(results.getByRole('button', { name: 'Hide body' }));
    expect(results.queryByTestId('body-as-sent')).toBeNull();
  });

  it('shows why a search failed', async () => {
    setup();
    await fireEvent.input(screen.getByRole('searchbox'), { target: { value: 'boom' } });
    await fireEvent.submit(screen.getByRole('search'));
    expect((await screen.findByRole('alert')).textContent).toBe('the search is empty');
  });

  it('shows what the active profile’s catalog holds, another catalog on choice, and exports CSV', async () => {
    const { calls } = setup();
    await fireEvent.click(screen.getByRole('tab', { name: 'Catalog' }));
    expect((await screen.findByTestId('ledger-summary')).textContent?.trim()).toBe(
      'Sandbox Main holds 2 tracks from this workstation.',
    );
    expect(screen.getAllByTestId('ledger-row').map((r) => r.textContent)).toEqual([
      expect.stringContaining('Opening'),
      expect.stringContaining('Drift'),
    ]);
    // The browser's download: the file name and the bytes it is handed.
    const blobs: Blob[] = [];
    const names: string[] = [];
    Object.assign(URL, {
      createObjectURL: (blob: Blob) => (blobs.push(blob), 'blob:ledger'),
      revokeObjectURL: () => undefined,
    });
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
      this: HTMLAnchorElement,
    ) {
      names.push(this.download);
    });
    await fireEvent.click(screen.getByRole('button', { name: 'Export CSV' }));
    await waitFor(() => expect(names).toEqual(['courier-ledger.csv']));
    const text = await new Promise<string>((resolve) => {
      const reader = new FileReader(); // jsdom's Blob has no text()
      reader.onload = () => resolve(String(reader.result));
      reader.readAsText(blobs[0]!);
    });
    expect(text).toBe('outer_id\r\n');
    click.mockRestore();
    expect(await screen.findByText('Exported 2 track(s) as courier-ledger.csv.')).toBeTruthy();

    await fireEvent.change(screen.getByRole('combobox', { name: 'Catalog' }), {
      target: { value: 'sb-2' },
    });
    await waitFor(() =>
      expect(screen.getByTestId('ledger-summary').textContent?.trim()).toBe(
        'Sandbox Back holds nothing from this workstation yet.',
      ),
    );
    expect(calls.filter(([op]) => op !== 'search')).toEqual([
      ['ledger', { profile: 'Sandbox', catalogId: 'sb-1' }],
      ['export', { profile: 'Sandbox', catalogId: 'sb-1' }],
      ['ledger', { profile: 'Sandbox', catalogId: 'sb-2' }],
    ]);
  });

  it('fetches an opened delivery’s requests and answers on demand, a page at a time', async () => {
    const item: DeliveryHistoryItem = {
      ...found.deliveries[0]!,
      id: 'big',
      ingestion_id: 'ing-1',
      files: 250,
      tracks: 250,
      bytes: 1,
      bytes_sent: 1,
      batches: 10,
      batches_accepted: 10,
      batches_failed: 0,
      runs: 1,
      upload_ms: 0,
      confirm_ms: 0,
      ingest_ms: 0,
      error: '',
      running: false,
    };
    const requests = Array.from({ length: 10 }, (_, index) => ({
      index,
      state: 'accepted' as const,
      tracks: 25,
      attempts: 1,
      status: 200,
      body: { count: 25, entries: [`answer ${index + 1}`] },
    }));
    const asked: unknown[] = [];
    const api = fakeDoor({
      listDeliveries: async () => ok({ deliveries: [item] }),
      async deliveryDetail(request) {
        asked.push(request);
        const offset = request.offset ?? 0;
        const detail: DeliveryDetail = {
          id: request.id,
          error: '',
          retries: [],
          total: requests.length,
          offset,
          requests: requests.slice(offset, offset + 6),
        };
        return ok(detail);
      },
    });
    const history = new HistoryState(api);
    render(HistoryView, { history });
    await fireEvent.click(await screen.findByRole('button', { name: 'Details' }));
    const shown = () => screen.getAllByTestId('history-request');
    await waitFor(() => expect(shown()).toHaveLength(6));
    expect(shown()[0]!.textContent).toMatch(
      /request 1: accepted · 25\s+track\(s\) · 1 attempt\(s\) · HTTP 200/,
    );
    expect(screen.getByLabelText('Response to request 6').textContent).toContain('answer 6');
    await fireEvent.click(
      screen.getByRole('button', { name: 'Show more requests (6 of 10 shown)' }),
    );
    await waitFor(() => expect(shown()).toHaveLength(10));
    expect(screen.getByLabelText('Response to request 10').textContent).toContain('answer 10');
    expect(screen.queryByRole('button', { name: /Show more requests/ })).toBeNull();
    expect(asked).toEqual([
      { id: 'big', offset: 0 },
      { id: 'big', offset: 6 },
    ]);
    await fireEvent.click(screen.getByRole('button', { name: 'Hide' }));
    expect(screen.queryByTestId('history-detail')).toBeNull();
  });
});
