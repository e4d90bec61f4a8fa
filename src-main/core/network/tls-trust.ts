/**
 * The certificates Courier trusts for HTTPS, in one place: Node's bundled roots, the operating
 * system's store (where a company installs its TLS-inspecting gateway's CA) and the file
 * `NODE_EXTRA_CA_CERTS` names. Node itself reads only the first and the last, and drops the last
 * as soon as a request names its own CAs, so Courier builds one secure context from all three
 * and gives it to every connection (API, S3, proxies).
 */
import { readFileSync } from 'node:fs';
import * as tls from 'node:tls';
import { createSecureContext, rootCertificates, type SecureContext } from 'node:tls';

/** Node ≥ 22.15 reads the OS store itself (macOS keychain, Windows store, OpenSSL's). */
type CaReader = (kind: 'default' | 'system' | 'bundled' | 'extra') => string[];

/** Where Linux distributions keep the system's CA bundle (Go's list). */
const LINUX_BUNDLES = [
  '/etc/ssl/certs/ca-certificates.crt',
  '/etc/pki/tls/certs/ca-bundle.crt',
  '/etc/ssl/ca-bundle.pem',
  '/etc/pki/tls/cacert.pem',
  '/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem',
  '/etc/ssl/cert.pem',
];

const PEM = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The PEM certificates in a file; none when it can't be read. */
function pemFile(path: string): string[] {
  try {
    return readFileSync(path, 'latin1').match(PEM) ?? [];
  } catch {
    return [];
  }
}

/** The OS store's certificates, as far as this Node can read them. */
function systemCertificates(platform: NodeJS.Platform): string[] {
  const read = (tls as unknown as { getCACertificates?: CaReader }).getCACertificates;
  if (typeof read === 'function') {
    try {
      return read('system');
    } catch {
      // an unreadable store leaves the other sources
    }
  }
  if (platform !== 'linux') return [];
  for (const path of LINUX_BUNDLES) {
    const certificates = pemFile(path);
    if (certificates.length > 0) return certificates;
  }
  return [];
}

/** Every certificate trusted: bundled roots, the OS store, then `NODE_EXTRA_CA_CERTS`. */
export function trustedCertificates(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string[] {
  const all = new Set<string>(rootCertificates);
  for (const certificate of systemCertificates(platform)) all.add(certificate);
  const extraPath = env.NODE_EXTRA_CA_CERTS;
  // Node warns at start-up when the file can't be read; nothing is added then.
  if (extraPath) for (const certificate of pemFile(extraPath)) all.add(certificate);
  return [...all];
}

let shared: SecureContext | undefined;

/** The one secure context every HTTPS connection of this process uses (built on first use). */
export function trustedContext(): SecureContext {
  shared ??= createSecureContext({ ca: trustedCertificates() });
  return shared;
}
