/**
 * Which proxy, if any, a request goes through. One rule for every request Courier makes (the
 * service API and every S3 call): the app asks the OS (Electron resolves system settings and
 * PAC scripts into PAC answers), the CLI and the browser host read `HTTPS_PROXY`, `HTTP_PROXY`
 * and `NO_PROXY`. Either way the answer is read here, and loopback is never proxied: the
 * embedded sandbox runs on this machine. docs/networks.md explains it to users.
 */
import { isIP } from 'node:net';

import { UsageError } from '../errors.js';

/** Where one request goes: straight to its host, or through an HTTP(S) proxy. */
export type ProxyRoute = { kind: 'direct' } | { kind: 'proxy'; proxy: URL };

/** The route for a URL: from the OS's answer in the app, from the environment elsewhere. */
export type ProxyResolver = (url: URL) => Promise<ProxyRoute>;

export const DIRECT: ProxyRoute = { kind: 'direct' };

/** The host of a URL without IPv6 brackets, lower-cased. */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

/** localhost, *.localhost, 127.0.0.0/8, ::1 (also as ::ffff:127.x): this machine itself. */
export function isLoopback(host: string): boolean {
  const h = host
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.$/, '');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  // An IPv4-mapped address, dotted or as URL parsing writes it (::ffff:7f00:1).
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h);
  if (dotted) return dotted[1]!.startsWith('127.');
  const hex = /^::ffff:([0-9a-f]{1,4}):[0-9a-f]{1,4}$/.exec(h);
  return hex ? parseInt(hex[1]!, 16) >> 8 === 127 : false;
}

/**
 * The first entry of a PAC answer Courier can use: DIRECT, or an HTTP (`PROXY`, `HTTP`) or
 * HTTPS proxy. SOCKS entries are passed over for the next one; an answer with nothing usable is
 * an error naming what it held.
 */
export function parsePacAnswer(answer: string): ProxyRoute {
  const entries = answer
    .split(';')
    .map((e) => e.trim())
    .filter(Boolean);
  if (entries.length === 0) return DIRECT;
  for (const entry of entries) {
    const [type = '', address = ''] = entry.split(/\s+/, 2);
    const kind = type.toUpperCase();
    if (kind === 'DIRECT') return DIRECT;
    if ((kind === 'PROXY' || kind === 'HTTP' || kind === 'HTTPS') && address) {
      const proxy = new URL(`${kind === 'HTTPS' ? 'https' : 'http'}://${address}`);
      return { kind: 'proxy', proxy };
    }
  }
  throw new UsageError(
    `The system's proxy settings offer only proxies Courier can't use ("${answer.slice(0, 120)}"): Courier supports HTTP and HTTPS proxies, not SOCKS.`,
  );
}

/** The proxy settings read from the environment, checked once when the process starts. */
export interface EnvProxySettings {
  https?: URL;
  http?: URL;
  /** `NO_PROXY` entries, lower-cased. */
  noProxy: string[];
}

/** The first of these variables that is set (curl's order: lower-case first). */
function firstSet(env: NodeJS.ProcessEnv, names: string[]): [string, string] | undefined {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return [name, value];
  }
  return undefined;
}

/** A proxy variable's value as a URL; `proxy:3128` means `http://proxy:3128`. */
function proxyUrl(name: string, value: string): URL {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new UsageError(
      `${name} is not a proxy address ("${shownProxy(value)}"): give one like http://proxy.example.com:3128.`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(
      `${name} names a ${url.protocol.slice(0, -1)} proxy ("${shownProxy(value)}"): Courier supports HTTP and HTTPS proxies (http://host:port or https://host:port).`,
    );
  }
  if (!url.hostname) {
    throw new UsageError(`${name} has no host ("${shownProxy(value)}").`);
  }
  return url;
}

/** A proxy address for a message: any password replaced. */
export function shownProxy(value: string | URL): string {
  const text = String(value);
  return text.replace(/(\/\/[^:/@]*:)[^@/]*@/, '$1***@');
}

/**
 * Reads `HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY` (as a fallback for both) and `NO_PROXY`, either
 * case; a malformed value is a usage error naming the variable.
 */
export function envProxySettings(env: NodeJS.ProcessEnv): EnvProxySettings {
  const all = firstSet(env, ['all_proxy', 'ALL_PROXY']);
  const https = firstSet(env, ['https_proxy', 'HTTPS_PROXY']) ?? all;
  const http = firstSet(env, ['http_proxy', 'HTTP_PROXY']) ?? all;
  const noProxy = (firstSet(env, ['no_proxy', 'NO_PROXY'])?.[1] ?? '')
    .split(/[\s,]+/)
    .map((e) => e.trim().toLowerCase())
    .filter(Boolean);
  return {
    ...(https ? { https: proxyUrl(...https) } : {}),
    ...(http ? { http: proxyUrl(...http) } : {}),
    noProxy,
  };
}

/** An IPv4 address as a number, or undefined. */
function ipv4(address: string): number | undefined {
  if (isIP(address) !== 4) return undefined;
  return address.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

/** Whether a `NO_PROXY` entry covers a host (and port). */
function bypasses(entry: string, host: string, port: string): boolean {
  if (entry === '*') return true;
  // An IPv4 range: 10.0.0.0/8.
  const cidr = /^(\d+\.\d+\.\d+\.\d+)\/(\d{1,2})$/.exec(entry);
  if (cidr) {
    const base = ipv4(cidr[1]!);
    const address = ipv4(host);
    const bits = Number(cidr[2]);
    if (base === undefined || address === undefined || bits > 32) return false;
    const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
    return (base & mask) >>> 0 === (address & mask) >>> 0;
  }
  // host:port (or [v6]:port) only for that port.
  let name = entry;
  const withPort = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(entry);
  if (withPort) {
    if (withPort[2] !== port) return false;
    name = withPort[1]!;
  }
  name = name.replace(/^\[|\]$/g, '').replace(/^\*?\./, '.');
  if (name.startsWith('.')) return host === name.slice(1) || host.endsWith(name);
  return host === name || host.endsWith(`.${name}`);
}

/** The route the environment's settings give a URL. */
export function envRoute(settings: EnvProxySettings, url: URL): ProxyRoute {
  const host = bareHost(url);
  if (isLoopback(host)) return DIRECT;
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  if (settings.noProxy.some((entry) => bypasses(entry, host, port))) return DIRECT;
  const proxy = url.protocol === 'https:' ? settings.https : settings.http;
  return proxy ? { kind: 'proxy', proxy } : DIRECT;
}

/** The environment's settings as a resolver, for the doors that run on Node. */
export function envProxyResolver(env: NodeJS.ProcessEnv): ProxyResolver {
  const settings = envProxySettings(env);
  return async (url) => envRoute(settings, url);
}

/**
 * A resolver over PAC answers ("PROXY host:port; DIRECT"), such as Electron's
 * `session.resolveProxy`, which applies the system settings and PAC scripts. Loopback is
 * answered here, without asking.
 */
export function pacProxyResolver(answerFor: (url: string) => Promise<string>): ProxyResolver {
  return async (url) =>
    isLoopback(bareHost(url)) ? DIRECT : parsePacAnswer(await answerFor(url.href));
}

/** The proxy variables that, when any is set, say the user chose a proxy explicitly. */
const PROXY_VARIABLES = [
  'https_proxy',
  'HTTPS_PROXY',
  'http_proxy',
  'HTTP_PROXY',
  'all_proxy',
  'ALL_PROXY',
];

/**
 * The app's resolver: the OS's answer (`answerFor`, Electron's), unless the environment names a
 * proxy, which then wins as it does for the CLI: the way to give the app a proxy's credentials,
 * which the OS's answer never carries.
 */
export function appProxyResolver(
  env: NodeJS.ProcessEnv,
  answerFor: (url: string) => Promise<string>,
): ProxyResolver {
  const chosen = PROXY_VARIABLES.some((name) => env[name]?.trim());
  return chosen ? envProxyResolver(env) : pacProxyResolver(answerFor);
}
