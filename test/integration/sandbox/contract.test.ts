/* eslint-disable @typescript-eslint/no-explicit-any -- answers are untyped JSON whose shape these tests check */
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { eventually, startTestSandbox, type TestSandbox } from '../../support/sandbox.js';

// Derived from service-interface.md: sections 2.1 (token), 2.2 (envelope), 2.3 (tag), 2.4 (track),
// 4.1–4.5 (endpoints, parameters, defaults), 5 (authentication), 3 (effects of ingestion).

let sandbox: TestSandbox;
let s3: S3Client;
let Bucket: string;
let catalog: string;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

beforeAll(async () => {
  sandbox = await startTestSandbox();
  s3 = sandbox.s3();
  Bucket = sandbox.info.bucket.bucket_name;
  catalog = sandbox.info.catalogs[0]!.id;
});
afterAll(async () => {
  await sandbox?.close();
});

async function deliver(key: string, body = 'RIFF....WAVE'): Promise<void> {
  await s3.send(new PutObjectCommand({ Bucket, Key: key, Body: body }));
}

async function exists(key: string): Promise<boolean> {
  try {
    await s3.send(new HeadObjectCommand({ Bucket, Key: key }));
    return true;
  } catch {
    return false;
  }
}

async function entries(catalogId = catalog): Promise<any[]> {
  const answer = await sandbox.api(`/sandbox/catalogs/${catalogId}/entries`);
  expect(answer.status).toBe(200);
  return answer.body.data;
}

function expectEnvelope(body: any, status: number): void {
  expect(body.status).toBe(status);
  expect(Number.isInteger(body.timestamp)).toBe(true);
  expect(Math.abs(body.timestamp - Date.now())).toBeLessThan(600_000);
  expect(body).toHaveProperty('data');
}

function expectError(
  answer: { status: number; body: any },
  status: number,
  mention?: string,
): void {
  expect(answer.status).toBe(status);
  expectEnvelope(answer.body, status);
  expect(typeof answer.body.error.code).toBe('string');
  expect(typeof answer.body.error.message).toBe('string');
  if (mention) expect(answer.body.error.message).toContain(mention);
}

describe('sandbox startup info', () => {
  it('has every field of the printed JSON line with its type', () => {
    const { info } = sandbox;
    expect(info.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(info.organization_id).toMatch(UUID);
    expect(typeof info.client_id).toBe('string');
    expect(typeof info.client_secret).toBe('string');
    expect(info.catalogs.length).toBeGreaterThanOrEqual(2);
    for (const c of info.catalogs) {
      expect(c.id).toMatch(UUID);
      expect(typeof c.name).toBe('string');
    }
    expect(info.bucket.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(Object.keys(info.bucket).sort()).toEqual([
      'access_key_id',
      'bucket_name',
      'bucket_region',
      'endpoint',
      'secret_access_key',
    ]);
  });
});

describe('POST /oauth/access_tokens/client (4.1, 2.1, 5)', () => {
  it('answers 201 with the envelope and all twelve token fields', async () => {
    const answer = await sandbox.api('/oauth/access_tokens/client', {
      method: 'POST',
      auth: false,
      json: { client_id: sandbox.info.client_id, client_secret: sandbox.info.client_secret },
    });
    expect(answer.status).toBe(201);
    expectEnvelope(answer.body, 201);
    const t = answer.body.data;
    expect(Object.keys(t).sort()).toEqual(
      [
        'expires_at',
        'id',
        'issued_at',
        'issuer_id',
        'issuer_type',
        'organization_id',
        'refreshed_at',
        'removed_at',
        'revoked_at',
        'subject_id',
        'subject_type',
        'token',
      ].sort(),
    );
    expect(t.id).toMatch(UUID);
    expect(t.removed_at).toBeNull();
    expect(t.refreshed_at).toBeNull();
    expect(t.revoked_at).toBeNull();
    expect(t.issuer_type).toBeNull();
    expect(t.issuer_id).toBeNull();
    expect(t.subject_type).toBe('Client');
    expect(t.subject_id).toMatch(UUID);
    expect(t.organization_id).toBe(sandbox.info.organization_id);
    expect(Number.isInteger(t.issued_at)).toBe(true);
    expect(t.expires_at - t.issued_at).toBe(7_200_000);
    expect(t.token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
  });

  it.each([
    ['a wrong secret', { client_id: 'x', client_secret: 'y' }],
    ['a missing secret', { client_id: 'x' }],
    ['an empty object', {}],
    ['an array', []],
    ['a number', 42],
  ])('answers 401 to %s', async (_name, json) => {
    const withId =
      typeof json === 'object' && json !== null && 'client_id' in json
        ? { ...json, client_id: sandbox.info.client_id }
        : json;
    const answer = await sandbox.api('/oauth/access_tokens/client', {
      method: 'POST',
      auth: false,
      json: withId,
    });
    expectError(answer, 401);
  });

  it('answers 401 to a body that is not JSON', async () => {
    const answer = await sandbox.api('/oauth/access_tokens/client', {
      method: 'POST',
      auth: false,
      body: '{not json',
    });
    expectError(answer, 401);
  });
});

describe('bearer authentication (5)', () => {
  const cases: [string, Record<string, string>][] = [
    ['missing', {}],
    ['malformed', { authorization: 'Token abc' }],
    ['a bare word', { authorization: 'Bearer abc' }],
    ['unknown', { authorization: 'Bearer eyJmb28iOjF9.c2lnbmF0dXJl' }],
  ];
  for (const path of [
    '/lexicology/tags',
    '/ingestion/audio_only',
    '/ingestion/audio_mapping',
    '/ingestion/json',
    '/sandbox/requests',
  ]) {
    it.each(cases)(`answers 401 on ${path} when the token is %s`, async (_name, headers) => {
      const method = path.startsWith('/ingestion') ? 'POST' : 'GET';
      const answer = await sandbox.api(`${path}?catalog_id=${catalog}`, {
        method,
        auth: false,
        headers,
      });
      expectError(answer, 401);
    });
  }

  it('answers 401 to an expired token', async () => {
    const short = await startTestSandbox({ tokenLifetimeMs: 200 });
    try {
      const answer = await short.api('/oauth/access_tokens/client', {
        method: 'POST',
        auth: false,
        json: { client_id: short.info.client_id, client_secret: short.info.client_secret },
      });
      expect(answer.body.data.expires_at - answer.body.data.issued_at).toBe(200);
      const token = answer.body.data.token;
      await new Promise((r) => setTimeout(r, 400));
      const late = await short.api('/lexicology/tags', {
        headers: { authorization: `Bearer ${token}` },
      });
      expectError(late, 401);
      expect(late.body.error.code).toBe('token_expired');
    } finally {
      await short.close();
    }
  });

  it('does not accept a token from another sandbox', async () => {
    const other = await startTestSandbox();
    try {
      const foreign = await other.token();
      expectError(
        await sandbox.api('/lexicology/tags', { headers: { authorization: `Bearer ${foreign}` } }),
        401,
      );
    } finally {
      await other.close();
    }
  });
});

describe('GET /lexicology/tags (4.2, 2.3)', () => {
  it('lists a first page without parameters, with the list fields', async () => {
    const answer = await sandbox.api('/lexicology/tags');
    expect(answer.status).toBe(200);
    expectEnvelope(answer.body, 200);
    const { data, offset, limit, size, total_size } = answer.body;
    expect(offset).toBe(0);
    expect(Number.isInteger(limit)).toBe(true);
    expect(size).toBe(data.length);
    expect(total_size).toBeGreaterThanOrEqual(150);
    expect(size).toBeLessThanOrEqual(limit);
    for (const tag of data) {
      expect(tag.id).toMatch(UUID);
      expect(typeof tag.name).toBe('string');
      expect(tag.category.id).toMatch(UUID);
      expect(typeof tag.category.name).toBe('string');
    }
  });

  it('has a realistic vocabulary across Mood and Genre', async () => {
    const all = (await sandbox.api('/lexicology/tags?limit=1000')).body;
    expect(all.size).toBe(all.total_size);
    const byCategory = new Map<string, number>();
    for (const tag of all.data)
      byCategory.set(tag.category.name, (byCategory.get(tag.category.name) ?? 0) + 1);
    expect(byCategory.get('Mood')).toBeGreaterThanOrEqual(40);
    expect(byCategory.get('Genre')).toBeGreaterThanOrEqual(40);
    expect((byCategory.get('Mood') ?? 0) + (byCategory.get('Genre') ?? 0)).toBeGreaterThanOrEqual(
      100,
    );
    const ids = new Set(all.data.map((t: any) => t.id));
    expect(ids.size).toBe(all.data.length);
    const categoryIds = new Set(
      all.data.filter((t: any) => t.category.name === 'Mood').map((t: any) => t.category.id),
    );
    expect(categoryIds.size).toBe(1);
  });

  it('echoes limit and returns at most that many', async () => {
    const answer = (await sandbox.api('/lexicology/tags?limit=7')).body;
    expect(answer.limit).toBe(7);
    expect(answer.size).toBe(7);
    expect(answer.data).toHaveLength(7);
    expect(answer.total_size).toBeGreaterThan(7);
  });

  it('filters by category_name', async () => {
    const answer = (await sandbox.api('/lexicology/tags?category_name=Mood&limit=1000')).body;
    expect(answer.total_size).toBe(answer.size);
    expect(answer.data.every((t: any) => t.category.name === 'Mood')).toBe(true);
  });

  it('filters by name, contains and case-insensitive', async () => {
    const answer = (await sandbox.api('/lexicology/tags?name=ROCK&limit=1000')).body;
    expect(answer.size).toBeGreaterThan(3);
    expect(answer.data.every((t: any) => t.name.toLowerCase().includes('rock'))).toBe(true);
  });

  it('combines filters, total_size counting all matches', async () => {
    const answer = (await sandbox.api('/lexicology/tags?category_name=Genre&name=o&limit=2')).body;
    expect(answer.size).toBe(2);
    expect(answer.total_size).toBeGreaterThan(2);
    expect(
      answer.data.every(
        (t: any) => t.category.name === 'Genre' && t.name.toLowerCase().includes('o'),
      ),
    ).toBe(true);
    const none = (await sandbox.api('/lexicology/tags?category_name=Mood&name=techno')).body;
    expect(none).toMatchObject({ size: 0, total_size: 0, data: [] });
  });

  it('pages with offset (the sandbox supports it)', async () => {
    const first = (await sandbox.api('/lexicology/tags?limit=5')).body;
    const second = (await sandbox.api('/lexicology/tags?limit=5&offset=5')).body;
    expect(second.offset).toBe(5);
    expect(second.data[0].id).not.toBe(first.data[0].id);
    const whole = (await sandbox.api('/lexicology/tags?limit=10')).body;
    expect([...first.data, ...second.data].map((t: any) => t.id)).toEqual(
      whole.data.map((t: any) => t.id),
    );
  });

  it.each([
    'limit=abc',
    'limit=-1',
    'limit=0',
    'limit=1.5',
    'limit=100000',
    'offset=-3',
    'offset=x',
  ])('answers 400 naming the parameter for %s', async (query) => {
    expectError(await sandbox.api(`/lexicology/tags?${query}`), 400, query.split('=')[0]);
  });
});

describe('POST /ingestion/json (4.5, 2.4)', () => {
  it('stores one entry per track with defaults, moving the audio into processed/audio', async () => {
    await deliver('delivery/audio/json1/a.wav');
    await deliver('delivery/audio/json1/b.wav');
    const before = Date.now();
    const tracks = [
      {
        outer_id: 'J-1',
        primary_media: 'json1/a.wav',
        title: 'First',
        isrc: 'FRAB12345678',
        release_date: 20240131,
        references: [{ id: 'r1', source: 'label' }],
        albums: [
          {
            upc: '123',
            title: 'Album',
            release_date: '20240131',
            type: 'Official',
            references: [],
            track_position: '1',
            disk_number: '1',
          },
        ],
        artists: [{ id: 'a1', name: 'Artist', role: 'Main' }],
        customer_tags: [{ tag: 'happy', category: 'Mood' }],
        lyrics: 'la la',
      },
      { outer_id: 'J-2', primary_media: 'json1/b.wav' },
    ];
    const answer = await sandbox.api(`/ingestion/json?catalog_id=${catalog}`, {
      method: 'POST',
      json: tracks,
    });
    expect(answer.status).toBe(200);
    expectEnvelope(answer.body, 200);
    const stored = await entries();
    const one = stored.find((e) => e.outer_id === 'J-1');
    expect(one).toMatchObject({ mode: 'json', metadata: tracks[0], state: expect.any(String) });
    expect(Number(one.ingestion_id)).toBeGreaterThanOrEqual(before - 1000);
    expect(one.created_at).toEqual(expect.any(Number));
    expect(one.updated_at).toEqual(expect.any(Number));
    expect(one.audio_key).toMatch(/^processed\/audio\//);
    expect(await exists(one.audio_key)).toBe(true);
    expect(await exists('delivery/audio/json1/a.wav')).toBe(false);
    expect(await exists('delivery/audio/json1/b.wav')).toBe(false);
  });

  it('accepts media_fetch_type=s3 and the media_fetch_types spelling, and keeps ingestion_id', async () => {
    await deliver('delivery/audio/json2/a.wav');
    await deliver('delivery/audio/json2/b.wav');
    for (const [name, file] of [
      ['media_fetch_type', 'a'],
      ['media_fetch_types', 'b'],
    ] as const) {
      const answer = await sandbox.api(
        `/ingestion/json?catalog_id=${catalog}&${name}=s3&ingestion_id=week-12`,
        {
          method: 'POST',
          json: [{ outer_id: `S-${file}`, primary_media: `json2/${file}.wav` }],
        },
      );
      expect(answer.status).toBe(200);
    }
    const stored = await entries();
    expect(
      stored
        .filter((e) => e.ingestion_id === 'week-12')
        .map((e) => e.outer_id)
        .sort(),
    ).toEqual(['S-a', 'S-b']);
  });

  it('keeps the delivered file with delete_delivered_file=false', async () => {
    await deliver('delivery/audio/json3/a.wav');
    const answer = await sandbox.api(
      `/ingestion/json?catalog_id=${catalog}&delete_delivered_file=false`,
      {
        method: 'POST',
        json: [{ outer_id: 'K-1', primary_media: 'json3/a.wav' }],
      },
    );
    expect(answer.status).toBe(200);
    expect(await exists('delivery/audio/json3/a.wav')).toBe(true);
    const entry = (await entries()).find((e) => e.outer_id === 'K-1');
    expect(await exists(entry.audio_key)).toBe(true);
  });

  it('overwrites an entry with the same outer_id; overwrite_audio_file=false keeps its audio', async () => {
    await deliver('delivery/audio/json4/v1.wav', 'version one');
    await sandbox.api(`/ingestion/json?catalog_id=${catalog}`, {
      method: 'POST',
      json: [{ outer_id: 'O-1', primary_media: 'json4/v1.wav', title: 'v1' }],
    });
    await deliver('delivery/audio/json4/v2.wav', 'version two');
    await sandbox.api(`/ingestion/json?catalog_id=${catalog}&overwrite_audio_file=false`, {
      method: 'POST',
      json: [{ outer_id: 'O-1', primary_media: 'json4/v2.wav', title: 'v2' }],
    });
    let stored = (await entries()).filter((e) => e.outer_id === 'O-1');
    expect(stored).toHaveLength(1);
    expect(stored[0].metadata.title).toBe('v2');
    const kept = await s3.send(new GetObjectCommand({ Bucket, Key: stored[0].audio_key }));
    expect(await kept.Body!.transformToString()).toBe('version one');
    expect(await exists('delivery/audio/json4/v2.wav')).toBe(false);

    await deliver('delivery/audio/json4/v3.wav', 'version three');
    await sandbox.api(`/ingestion/json?catalog_id=${catalog}`, {
      method: 'POST',
      json: [{ outer_id: 'O-1', primary_media: 'json4/v3.wav', title: 'v3' }],
    });
    stored = (await entries()).filter((e) => e.outer_id === 'O-1');
    expect(stored).toHaveLength(1);
    const replaced = await s3.send(new GetObjectCommand({ Bucket, Key: stored[0].audio_key }));
    expect(await replaced.Body!.transformToString()).toBe('version three');
  });

  it('fetches primary_media over HTTP with media_fetch_type=download', async () => {
    const { createServer } = await import('node:http');
    const server = createServer((req, res) => {
      if (req.url === '/song.mp3') res.end('ID3 audio bytes');
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    try {
      const ok = await sandbox.api(
        `/ingestion/json?catalog_id=${catalog}&media_fetch_type=download`,
        {
          method: 'POST',
          json: [{ outer_id: 'D-1', primary_media: `http://127.0.0.1:${port}/song.mp3` }],
        },
      );
      expect(ok.status).toBe(200);
      const entry = (await entries()).find((e) => e.outer_id === 'D-1');
      const audio = await s3.send(new GetObjectCommand({ Bucket, Key: entry.audio_key }));
      expect(await audio.Body!.transformToString()).toBe('ID3 audio bytes');
      const missing = await sandbox.api(
        `/ingestion/json?catalog_id=${catalog}&media_fetch_type=download`,
        {
          method: 'POST',
          json: [{ outer_id: 'D-2', primary_media: `http://127.0.0.1:${port}/nope.mp3` }],
        },
      );
      expectError(missing, 400, 'primary_media');
    } finally {
      server.close();
    }
  });

  const bad: [string, unknown, string][] = [
    ['an object instead of an array', { outer_id: 'x', primary_media: 'a.wav' }, 'body'],
    ['an empty array', [], 'body'],
    [
      '26 tracks',
      Array.from({ length: 26 }, (_, i) => ({ outer_id: `t${i}`, primary_media: 'x.wav' })),
      '25',
    ],
    ['a missing outer_id', [{ primary_media: 'x.wav' }], 'outer_id'],
    ['a missing primary_media', [{ outer_id: 'x' }], 'primary_media'],
    ['a numeric outer_id', [{ outer_id: 5, primary_media: 'x.wav' }], 'outer_id'],
    [
      'a string release_date',
      [{ outer_id: 'x', primary_media: 'x.wav', release_date: '20240101' }],
      'release_date',
    ],
    [
      'an impossible release_date',
      [{ outer_id: 'x', primary_media: 'x.wav', release_date: 20241345 }],
      'release_date',
    ],
    [
      'a short release_date',
      [{ outer_id: 'x', primary_media: 'x.wav', release_date: 2024 }],
      'release_date',
    ],
    [
      'an album release_date as integer',
      [{ outer_id: 'x', primary_media: 'x.wav', albums: [{ release_date: 20240101 }] }],
      'albums[0].release_date',
    ],
    [
      'artists not an array',
      [{ outer_id: 'x', primary_media: 'x.wav', artists: 'Someone' }],
      'artists',
    ],
    [
      'an artist without role',
      [{ outer_id: 'x', primary_media: 'x.wav', artists: [{ id: '1', name: 'n' }] }],
      'artists[0].role',
    ],
    [
      'a customer tag without category',
      [{ outer_id: 'x', primary_media: 'x.wav', customer_tags: [{ tag: 'a' }] }],
      'customer_tags[0].category',
    ],
    [
      'a reference that is a string',
      [{ outer_id: 'x', primary_media: 'x.wav', references: ['isrc'] }],
      'references[0]',
    ],
    ['a null track', [null], '[0]'],
    [
      'path traversal in primary_media',
      [{ outer_id: 'x', primary_media: '../mapping/m.yaml' }],
      'primary_media',
    ],
  ];
  it.each(bad)('answers 400 naming the field for %s', async (_name, json, mention) => {
    const answer = await sandbox.api(`/ingestion/json?catalog_id=${catalog}`, {
      method: 'POST',
      json,
    });
    expectError(answer, 400, mention);
  });

  it.each([
    ['bad JSON', '[{"outer_id":'],
    ['an empty body', ''],
    ['a JSON string', '"hello"'],
    ['binary garbage', '\u0000\u0001\u00ff'],
  ])('answers 400, never 500, to %s', async (_name, body) => {
    const answer = await sandbox.api(`/ingestion/json?catalog_id=${catalog}`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json' },
    });
    expectError(answer, 400);
  });

  it.each([
    ['media_fetch_type=ftp', 'media_fetch_type'],
    ['overwrite_audio_file=maybe', 'overwrite_audio_file'],
    ['delete_delivered_file=yes', 'delete_delivered_file'],
  ])('answers 400 to %s', async (query, mention) => {
    const answer = await sandbox.api(`/ingestion/json?catalog_id=${catalog}&${query}`, {
      method: 'POST',
      json: [{ outer_id: 'x', primary_media: 'x.wav' }],
    });
    expectError(answer, 400, mention);
  });

  it('answers 400 without catalog_id, 404 for an unknown catalog, 404 for missing audio', async () => {
    const json = [{ outer_id: 'x', primary_media: 'nowhere/x.wav' }];
    expectError(await sandbox.api('/ingestion/json', { method: 'POST', json }), 400, 'catalog_id');
    expectError(
      await sandbox.api('/ingestion/json?catalog_id=00000000-0000-4000-8000-000000000000', {
        method: 'POST',
        json,
      }),
      404,
      'catalog_id',
    );
    expectError(
      await sandbox.api(`/ingestion/json?catalog_id=${catalog}`, { method: 'POST', json }),
      404,
      'nowhere/x.wav',
    );
  });
});

describe('POST /ingestion/audio_only (4.3)', () => {
  it('creates one entry per file named by its filename and empties the delivery path', async () => {
    await deliver('delivery/audio/free/one.wav');
    await deliver('delivery/audio/free/two.flac');
    const answer = await sandbox.api(
      `/ingestion/audio_only?catalog_id=${catalog}&delivery_dir_path=free`,
      { method: 'POST' },
    );
    expect(answer.status).toBe(200);
    const stored = (await entries()).filter((e) => e.mode === 'audio_only');
    expect(stored.map((e) => e.outer_id).sort()).toEqual(['one.wav', 'two.flac']);
    for (const entry of stored) expect(await exists(entry.audio_key)).toBe(true);
    const left = await s3.send(
      new ListObjectsV2Command({ Bucket, Prefix: 'delivery/audio/free/' }),
    );
    expect(left.Contents ?? []).toEqual([]);
  });

  it('keeps the delivered files with delete_delivered_file=false; a same-named file overwrites', async () => {
    await deliver('delivery/audio/free2/one.wav', 'newer');
    const answer = await sandbox.api(
      `/ingestion/audio_only?catalog_id=${catalog}&delivery_dir_path=/free2/&delete_delivered_file=false`,
      { method: 'POST' },
    );
    expect(answer.status).toBe(200);
    expect(await exists('delivery/audio/free2/one.wav')).toBe(true);
    const stored = (await entries()).filter((e) => e.outer_id === 'one.wav');
    expect(stored).toHaveLength(1);
    const audio = await s3.send(new GetObjectCommand({ Bucket, Key: stored[0].audio_key }));
    expect(await audio.Body!.transformToString()).toBe('newer');
  });

  it.each([
    ['../delivery', 400, 'delivery_dir_path'],
    ['a/../../INFO.json', 400, 'delivery_dir_path'],
    ['a\\b', 400, 'delivery_dir_path'],
    ['does-not-exist', 404, 'delivery'],
  ])('answers for delivery_dir_path=%s with %i', async (path, status, mention) => {
    const answer = await sandbox.api(
      `/ingestion/audio_only?catalog_id=${catalog}&delivery_dir_path=${encodeURIComponent(path)}`,
      { method: 'POST' },
    );
    expectError(answer, status, mention);
  });

  it('answers 400 without delivery_dir_path and 404 for an unknown catalog', async () => {
    expectError(
      await sandbox.api(`/ingestion/audio_only?catalog_id=${catalog}`, { method: 'POST' }),
      400,
      'delivery_dir_path',
    );
    expectError(
      await sandbox.api('/ingestion/audio_only?catalog_id=nope&delivery_dir_path=x', {
        method: 'POST',
      }),
      404,
      'catalog_id',
    );
  });
});

describe('POST /ingestion/audio_mapping (4.4, 2.5)', () => {
  const mapping =
    'mapping:\n  - separator: "_"\n  - column_0: outer_id\n  - column_1: artist_name\n  - column_2: title\n  - column_3: release_date\n';

  it('extracts fields from each filename with mapping_content', async () => {
    await deliver('delivery/audio/mapped/ID-1_Artist One_Song One_20240105.wav');
    await deliver('delivery/audio/mapped/ID-2_Artist Two_Song Two_20231231.mp3');
    const answer = await sandbox.api(
      `/ingestion/audio_mapping?catalog_id=${catalog}&delivery_dir_path=mapped&mapping_content=${encodeURIComponent(mapping)}`,
      { method: 'POST' },
    );
    expect(answer.status).toBe(200);
    const one = (await entries()).find((e) => e.outer_id === 'ID-1');
    expect(one).toMatchObject({
      mode: 'audio_mapping',
      metadata: {
        outer_id: 'ID-1',
        artist_name: 'Artist One',
        title: 'Song One',
        release_date: 20240105,
      },
    });
    expect(await exists(one.audio_key)).toBe(true);
    expect(await exists('delivery/audio/mapped/ID-1_Artist One_Song One_20240105.wav')).toBe(false);
  });

  it('reads the mapping from mapping_filename in delivery/mapping/', async () => {
    await s3.send(
      new PutObjectCommand({
        Bucket,
        Key: 'delivery/mapping/label.yaml',
        Body: 'mapping:\n  - separator: " - "\n  - column_0: isrc\n  - column_1: outer_id\n',
      }),
    );
    await deliver('delivery/audio/mapped2/FRAB10000001 - CAT-9.wav');
    const answer = await sandbox.api(
      `/ingestion/audio_mapping?catalog_id=${catalog}&delivery_dir_path=mapped2&mapping_filename=label.yaml`,
      { method: 'POST' },
    );
    expect(answer.status).toBe(200);
    expect((await entries()).find((e) => e.outer_id === 'CAT-9')?.metadata).toEqual({
      outer_id: 'CAT-9',
      isrc: 'FRAB10000001',
    });
  });

  it.each([
    ['not YAML', 'mapping: [', 'YAML'],
    ['no mapping key', 'columns: []', 'mapping'],
    ['no separator', 'mapping:\n  - column_0: outer_id\n', 'separator'],
    [
      'two separators',
      'mapping:\n  - separator: "_"\n  - separator: "-"\n  - column_0: outer_id\n',
      'separator',
    ],
    [
      'an unknown field',
      'mapping:\n  - separator: "_"\n  - column_0: outer_id\n  - column_1: genre\n',
      'genre',
    ],
    ['an unknown key', 'mapping:\n  - separator: "_"\n  - col0: outer_id\n', 'col0'],
    ['no outer_id', 'mapping:\n  - separator: "_"\n  - column_0: title\n', 'outer_id'],
  ])('answers 400 to a mapping with %s', async (_name, content, mention) => {
    await deliver('delivery/audio/mapped3/A_B.wav');
    const answer = await sandbox.api(
      `/ingestion/audio_mapping?catalog_id=${catalog}&delivery_dir_path=mapped3&mapping_content=${encodeURIComponent(content)}`,
      { method: 'POST' },
    );
    expectError(answer, 400, mention);
    expect(await exists('delivery/audio/mapped3/A_B.wav')).toBe(true);
  });

  it('answers 400 when a filename does not fit, changing nothing', async () => {
    await deliver('delivery/audio/mapped4/only-one-part.wav');
    const answer = await sandbox.api(
      `/ingestion/audio_mapping?catalog_id=${catalog}&delivery_dir_path=mapped4&mapping_content=${encodeURIComponent(mapping)}`,
      { method: 'POST' },
    );
    expectError(answer, 400, 'only-one-part.wav');
    expect(await exists('delivery/audio/mapped4/only-one-part.wav')).toBe(true);
  });

  it('answers 400 without a mapping, 404 for a missing mapping file, 400 for a traversing one', async () => {
    const base = `/ingestion/audio_mapping?catalog_id=${catalog}&delivery_dir_path=mapped4`;
    expectError(await sandbox.api(base, { method: 'POST' }), 400, 'mapping');
    expectError(
      await sandbox.api(`${base}&mapping_filename=missing.yaml`, { method: 'POST' }),
      404,
      'missing.yaml',
    );
    expectError(
      await sandbox.api(`${base}&mapping_filename=../../INFO.json`, { method: 'POST' }),
      400,
      'mapping_filename',
    );
  });
});

describe('asynchronous steps (3)', () => {
  it('moves entries to available and writes a tagging CSV into csv_outputs/', async () => {
    const target = sandbox.info.catalogs[1]!.id;
    await deliver('delivery/audio/async/x.wav');
    await sandbox.api(`/ingestion/json?catalog_id=${target}`, {
      method: 'POST',
      json: [{ outer_id: 'ASYNC-1', primary_media: 'async/x.wav', title: 'Async' }],
    });
    const first = (await entries(target))[0];
    expect(['stored', 'analyzing', 'analyzed', 'available']).toContain(first.state);
    const done = await eventually(async () => {
      const entry = (await entries(target)).find((e) => e.outer_id === 'ASYNC-1');
      return entry?.state === 'available' ? entry : undefined;
    });
    expect(done.updated_at).toBeGreaterThanOrEqual(first.updated_at);
    const listed = await s3.send(
      new ListObjectsV2Command({ Bucket, Prefix: `csv_outputs/${target}/` }),
    );
    const key = listed.Contents?.[0]?.Key;
    expect(key).toMatch(/\.csv$/);
    const csv = await (
      await s3.send(new GetObjectCommand({ Bucket, Key: key! }))
    ).Body!.transformToString();
    expect(csv).toContain('ASYNC-1');
  });
});

describe('inspection routes (sandbox only)', () => {
  it('lists entries with every documented field', async () => {
    const stored = await entries();
    expect(stored.length).toBeGreaterThan(0);
    for (const entry of stored) {
      expect(typeof entry.outer_id).toBe('string');
      expect(['json', 'audio_only', 'audio_mapping']).toContain(entry.mode);
      expect(typeof entry.ingestion_id).toBe('string');
      expect(typeof entry.metadata).toBe('object');
      expect(entry.audio_key === null || typeof entry.audio_key === 'string').toBe(true);
      expect(typeof entry.state).toBe('string');
      expect(Number.isInteger(entry.created_at)).toBe(true);
      expect(Number.isInteger(entry.updated_at)).toBe(true);
    }
    expectError(await sandbox.api('/sandbox/catalogs/unknown/entries'), 404);
  });

  it('lists recent requests with method, path, query, status, tracks and outer_ids', async () => {
    await deliver('delivery/audio/log/a.wav');
    await sandbox.api(`/ingestion/json?catalog_id=${catalog}&ingestion_id=logged`, {
      method: 'POST',
      json: [{ outer_id: 'L-1', primary_media: 'log/a.wav' }],
    });
    await sandbox.api('/lexicology/tags?limit=3');
    const answer = await sandbox.api('/sandbox/requests');
    expect(answer.status).toBe(200);
    const log = answer.body.data as any[];
    const ingest = log.find((r) => r.query.ingestion_id === 'logged');
    expect(ingest).toMatchObject({
      method: 'POST',
      path: '/ingestion/json',
      status: 200,
      tracks: 1,
      outer_ids: ['L-1'],
      query: { catalog_id: catalog },
    });
    expect(log.at(-1)).toMatchObject({
      method: 'GET',
      path: '/lexicology/tags',
      query: { limit: '3' },
      status: 200,
      tracks: null,
      outer_ids: null,
    });
  });
});

describe('unknown routes', () => {
  it('answers 404 and 405 in the envelope', async () => {
    expectError(await sandbox.api('/nope'), 404);
    expectError(await sandbox.api('/lexicology/tags', { method: 'POST' }), 405);
  });
});

describe('malformed input never causes a 500', () => {
  it('answers below 500 to random bodies and queries on every route', async () => {
    const routes = [
      '/oauth/access_tokens/client',
      '/lexicology/tags',
      '/ingestion/audio_only',
      '/ingestion/audio_mapping',
      '/ingestion/json',
    ];
    const queries = [
      `catalog_id=${catalog}&delivery_dir_path=%ZZ&limit=%00`,
      `catalog_id=${catalog}&mapping_content=${encodeURIComponent('mapping: {a: [')}&delivery_dir_path=x`,
      `catalog_id=${catalog}&catalog_id=other&media_fetch_type=`,
      'limit=99999999999999999999&offset=1e3&name=%F0%9F%8E%B5',
      `catalog_id=%2e%2e&delivery_dir_path=%2e%2e%2f`,
    ];
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (const route of routes) {
      for (const query of queries) {
        const bytes = Buffer.from(Array.from({ length: 64 }, () => Math.floor(random() * 256)));
        for (const body of [
          bytes,
          '[{"outer_id":{"$ne":1},"primary_media":[]}]',
          '{"a":'.repeat(50),
          '[' + '1,'.repeat(30) + '1]',
        ]) {
          const method = route === '/lexicology/tags' ? 'GET' : 'POST';
          const answer = await sandbox.api(`${route}?${query}`, {
            method,
            body: method === 'GET' ? undefined : body,
            headers: { 'content-type': 'application/json' },
          });
          expect(answer.status, `${method} ${route}?${query}`).toBeLessThan(500);
          expect(answer.body.status).toBe(answer.status);
        }
      }
    }
  });

  it('answers a delete of a key that never existed without a server error', async () => {
    const { DeleteObjectCommand } = await import('@aws-sdk/client-s3');
    await s3.send(new DeleteObjectCommand({ Bucket, Key: 'delivery/audio/never/there.wav' }));
  });
});
