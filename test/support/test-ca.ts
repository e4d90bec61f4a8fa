/**
 * A certificate authority made for one test run with openssl, standing for a company's
 * TLS-inspecting gateway: its own CA, and a server certificate it signed for the host names
 * given. Under CI=true a missing openssl is a failure.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCa {
  /** The CA certificate's file (what NODE_EXTRA_CA_CERTS would name). */
  caPath: string;
  /** The server's key and certificate, PEM. */
  key: string;
  cert: string;
}

/** Why the CA can't be made here, or undefined when it can. */
export function missingOpenssl(): string | undefined {
  return spawnSync('openssl', ['version']).status === 0 ? undefined : 'openssl is not installed';
}

export async function makeTestCa(hostNames: string[]): Promise<TestCa> {
  const dir = await mkdtemp(join(tmpdir(), 'courier-ca-'));
  const at = (name: string) => join(dir, name);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  const openssl = (args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  openssl([
    'req',
    '-x509',
    ...ec,
    '-keyout',
    at('ca.key'),
    '-out',
    at('ca.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=Courier Test Gateway CA',
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  openssl([
    'req',
    ...ec,
    '-keyout',
    at('server.key'),
    '-out',
    at('server.csr'),
    '-subj',
    `/CN=${hostNames[0]}`,
  ]);
  const names = hostNames.map((h) => (/^\d+\.\d+\.\d+\.\d+$/.test(h) ? `IP:${h}` : `DNS:${h}`));
  await writeFile(
    at('ext.cnf'),
    `subjectAltName=${names.join(',')}\nextendedKeyUsage=serverAuth\n`,
  );
  openssl([
    'x509',
    '-req',
    '-in',
    at('server.csr'),
    '-CA',
    at('ca.pem'),
    '-CAkey',
    at('ca.key'),
    '-CAcreateserial',
    '-out',
    at('server.pem'),
    '-days',
    '2',
    '-extfile',
    at('ext.cnf'),
  ]);
  return {
    caPath: at('ca.pem'),
    key: await readFile(at('server.key'), 'utf8'),
    cert: await readFile(at('server.pem'), 'utf8'),
  };
}
