import { describe, expect, it } from 'vitest';

import {
  appProxyResolver,
  envProxyResolver,
  envProxySettings,
  envRoute,
  isLoopback,
  pacProxyResolver,
  parsePacAnswer,
  type ProxyRoute,
  shownProxy,
} from '../../../src-main/core/network/proxy.js';

/** The proxy a URL is sent through under these variables, or 'direct'. */
function via(env: NodeJS.ProcessEnv, url: string): string {
  const route = envRoute(envProxySettings(env), new URL(url));
  return route.kind === 'direct' ? 'direct' : route.proxy.href;
}

const shown = (route: ProxyRoute) => (route.kind === 'direct' ? 'direct' : route.proxy.href);

describe('proxy from the environment', () => {
  it('sends https through HTTPS_PROXY and http through HTTP_PROXY, lower case first', () => {
    const env = {
      HTTPS_PROXY: 'http://upper:3128',
      https_proxy: 'proxy.corp:8080',
      HTTP_PROXY: 'http://plain:3128',
    };
    expect(via(env, 'https://api.example.com/v1')).toBe('http://proxy.corp:8080/');
    expect(via(env, 'http://api.example.com/v1')).toBe('http://plain:3128/');
    expect(via({ HTTP_PROXY: 'http://plain:3128' }, 'https://api.example.com')).toBe('direct');
    expect(via({ ALL_PROXY: 'https://all:443' }, 'https://api.example.com')).toBe('https://all/');
    expect(via({}, 'https://api.example.com')).toBe('direct');
  });

  it('never proxies this machine', () => {
    const env = { HTTPS_PROXY: 'http://proxy:3128', HTTP_PROXY: 'http://proxy:3128' };
    for (const url of [
      'http://127.0.0.1:9000',
      'http://127.1.2.3',
      'http://localhost:8080',
      'https://sandbox.localhost',
      'http://[::1]:9000',
      'http://[::ffff:127.0.0.1]:80',
    ]) {
      expect(via(env, url), url).toBe('direct');
    }
    expect(isLoopback('128.0.0.1')).toBe(false);
    expect(isLoopback('localhost.example.com')).toBe(false);
  });

  it('reads NO_PROXY as curl and Go do: names and their subdomains, ports, ranges, *', () => {
    const env = (noProxy: string) => ({ HTTPS_PROXY: 'http://proxy:3128', NO_PROXY: noProxy });
    expect(via(env('example.com'), 'https://api.example.com')).toBe('direct');
    expect(via(env('example.com'), 'https://example.com')).toBe('direct');
    expect(via(env('example.com'), 'https://badexample.com')).toBe('http://proxy:3128/');
    expect(via(env('.example.com'), 'https://example.com')).toBe('direct');
    expect(via(env('*.example.com'), 'https://s3.example.com')).toBe('direct');
    expect(via(env('example.com:8443'), 'https://example.com:8443')).toBe('direct');
    expect(via(env('example.com:8443'), 'https://example.com')).toBe('http://proxy:3128/');
    expect(via(env('10.0.0.0/8'), 'https://10.20.30.40')).toBe('direct');
    expect(via(env('10.0.0.0/8'), 'https://11.0.0.1')).toBe('http://proxy:3128/');
    expect(via(env('a.test, B.EXAMPLE.COM'), 'https://b.example.com')).toBe('direct');
    expect(via(env('*'), 'https://anything.example')).toBe('direct');
    expect(via({ ...env(''), no_proxy: 'api.example.com' }, 'https://api.example.com')).toBe(
      'direct',
    );
  });

  it('refuses a proxy it cannot use in one line naming the variable, never showing a password', () => {
    expect(() => envProxySettings({ HTTPS_PROXY: 'socks5://me:pw@proxy:1080' })).toThrow(
      'HTTPS_PROXY names a socks5 proxy ("socks5://me:***@proxy:1080"): Courier supports HTTP and HTTPS proxies (http://host:port or https://host:port).',
    );
    expect(() => envProxySettings({ http_proxy: 'http://' })).toThrow(
      /^http_proxy is not a proxy address/,
    );
    expect(shownProxy('http://user:p%40ss@proxy:3128')).toBe('http://user:***@proxy:3128');
  });

  it('keeps credentials in the proxy address', async () => {
    const route = await envProxyResolver({ HTTPS_PROXY: 'http://me:p%40ss@proxy:3128' })(
      new URL('https://api.example.com'),
    );
    expect(route.kind === 'proxy' && route.proxy.username).toBe('me');
    expect(route.kind === 'proxy' && decodeURIComponent(route.proxy.password)).toBe('p@ss');
  });
});

describe("the OS's answer (PAC)", () => {
  it('takes the first entry Courier can use', () => {
    expect(shown(parsePacAnswer('DIRECT'))).toBe('direct');
    expect(shown(parsePacAnswer(''))).toBe('direct');
    expect(shown(parsePacAnswer('PROXY proxy.corp:8080; DIRECT'))).toBe('http://proxy.corp:8080/');
    expect(shown(parsePacAnswer('HTTPS secure.corp:443'))).toBe('https://secure.corp/');
    expect(shown(parsePacAnswer('SOCKS5 s:1080; PROXY p:3128'))).toBe('http://p:3128/');
    expect(shown(parsePacAnswer('SOCKS s:1080; DIRECT'))).toBe('direct');
    expect(() => parsePacAnswer('SOCKS5 s:1080')).toThrow(/only proxies Courier can't use.*SOCKS/);
  });

  it('answers loopback itself, without asking the OS', async () => {
    const asked: string[] = [];
    const resolve = pacProxyResolver(async (url) => {
      asked.push(url);
      return 'PROXY proxy.corp:8080';
    });
    expect(shown(await resolve(new URL('http://127.0.0.1:4000/x')))).toBe('direct');
    expect(shown(await resolve(new URL('https://api.example.com/v1')))).toBe(
      'http://proxy.corp:8080/',
    );
    expect(asked).toEqual(['https://api.example.com/v1']);
  });
});

describe("the app's resolver", () => {
  const os = async () => 'PROXY os-proxy:8080';
  it('asks the OS unless a proxy variable is set, which then wins (it can carry credentials)', async () => {
    const url = new URL('https://api.example.com');
    expect(shown(await appProxyResolver({}, os)(url))).toBe('http://os-proxy:8080/');
    expect(shown(await appProxyResolver({ NO_PROXY: 'x' }, os)(url))).toBe('http://os-proxy:8080/');
    const chosen = await appProxyResolver({ HTTPS_PROXY: 'http://me:pw@corp:3128' }, os)(url);
    expect(shown(chosen)).toBe('http://me:pw@corp:3128/');
  });
});
