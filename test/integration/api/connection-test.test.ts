import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { ServiceClient } from '../../../src-main/core/api/service-client.js';
import type { Connection } from '../../../src-main/core/connection.js';
import { testConnection } from '../../../src-main/core/connection-test.js';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.js';

/** A connection to a test sandbox, with parts of it made wrong on purpose. */
function connectionTo(
  sandbox: TestSandbox,
  wrong: {
    clientSecret?: string;
    region?: string;
    secretAccessKey?: string;
    endpoint?: string;
  } = {},
): Connection {
  const { info } = sandbox;
  return {
    profile: {
      name: 'Under test',
      environment: 'staging',
      base_url: info.base_url,
      client_id: info.client_id,
      bucket: { ...info.bucket, endpoint: wrong.endpoint ?? info.bucket.endpoint },
      catalogs: [],
    },
    api: new ServiceClient({
      baseUrl: info.base_url,
      clientId: info.client_id,
      clientSecret: async () => wrong.clientSecret ?? info.client_secret,
      retries: 1,
      backoffBaseMs: 5,
    }),
    bucket: {
      region: wrong.region ?? info.bucket.bucket_region,
      bucket: info.bucket.bucket_name,
      accessKeyId: info.bucket.access_key_id,
      secretAccessKey: wrong.secretAccessKey ?? info.bucket.secret_access_key,
      endpoint: wrong.endpoint ?? info.bucket.endpoint,
    },
    close: async () => undefined,
  };
}

const outcome = (report: Awaited<ReturnType<typeof testConnection>>) =>
  Object.fromEntries(report.checks.map((c) => [c.id, c.ok ? 'ok' : (c.hint ?? c.detail)]));

describe('testConnection()', () => {
  let sandbox: TestSandbox;

  beforeAll(async () => {
    sandbox = await startTestSandbox();
  });
  afterAll(() => sandbox.close());

  it('passes every check of a right profile', async () => {
    const report = await testConnection(connectionTo(sandbox));
    expect(report.ok).toBe(true);
    expect(outcome(report)).toEqual({
      token: 'ok',
      tags: 'ok',
      bucket_list: 'ok',
      bucket_write: 'ok',
    });
  });

  it('tells a wrong client secret from a wrong S3 secret', async () => {
    const badClient = outcome(
      await testConnection(connectionTo(sandbox, { clientSecret: 'nope-nope' })),
    );
    expect(badClient.token).toMatch(/client_id and the client secret/);
    expect(badClient.bucket_write).toBe('ok');
    const badS3 = outcome(
      await testConnection(connectionTo(sandbox, { secretAccessKey: 'x'.repeat(40) })),
    );
    expect(badS3.token).toBe('ok');
    expect(badS3.bucket_list).toMatch(/secret access key/);
  });

  it('names a wrong region', async () => {
    const report = outcome(await testConnection(connectionTo(sandbox, { region: 'us-east-1' })));
    expect(report.bucket_list).toMatch(/region/);
  });

  it('names an unreachable bucket endpoint', async () => {
    const report = outcome(
      await testConnection(connectionTo(sandbox, { endpoint: 'http://127.0.0.1:9' })),
    );
    expect(report.token).toBe('ok');
    expect(report.bucket_list).toMatch(/S3 endpoint/);
  });

  it('warns of a clock far off the service’s before uploads fail on it', async () => {
    const skewed = await startTestSandbox({ now: () => Date.now() + 20 * 60_000 });
    try {
      const report = await testConnection(connectionTo(skewed));
      const token = report.checks[0]!;
      expect(token).toMatchObject({ id: 'token', ok: false, hint: expect.stringMatching(/clock/) });
      expect(token.detail).toMatch(/20 minutes behind/);
    } finally {
      await skewed.close();
    }
  });
});
