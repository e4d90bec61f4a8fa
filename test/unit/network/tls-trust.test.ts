import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootCertificates } from 'node:tls';

import { describe, expect, it } from 'vitest';

import { trustedCertificates } from '../../../src-main/core/network/tls-trust.js';
import { makeTestCa, missingOpenssl } from '../../support/test-ca.js';

const noOpenssl = missingOpenssl();
if (noOpenssl && process.env.CI === 'true') throw new Error(`CI=true but ${noOpenssl}`);

describe.skipIf(noOpenssl !== undefined)('trusted certificates', () => {
  it("adds the OS store and NODE_EXTRA_CA_CERTS to Node's own roots", async () => {
    const ca = await makeTestCa(['gateway.example']);
    const { readFile } = await import('node:fs/promises');
    const pem = (await readFile(ca.caPath, 'utf8')).trim();
    const plain = trustedCertificates({}, 'linux');
    expect(plain.length).toBeGreaterThanOrEqual(rootCertificates.length);
    expect(plain.map((c) => c.trim())).not.toContain(pem);
    const extra = trustedCertificates({ NODE_EXTRA_CA_CERTS: ca.caPath }, 'linux');
    expect(extra.map((c) => c.trim())).toContain(pem);
    expect(extra.length).toBe(plain.length + 1);
  });

  it('adds nothing from a NODE_EXTRA_CA_CERTS file that holds no certificate', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'courier-ca-'));
    await writeFile(join(dir, 'junk.pem'), 'not a certificate');
    const plain = trustedCertificates({}, 'linux');
    expect(trustedCertificates({ NODE_EXTRA_CA_CERTS: join(dir, 'junk.pem') }, 'linux')).toEqual(
      plain,
    );
    expect(trustedCertificates({ NODE_EXTRA_CA_CERTS: join(dir, 'missing.pem') }, 'linux')).toEqual(
      plain,
    );
  });
});
