/**
 * How every request leaves this process: the service API's fetch and the S3 client's sockets
 * both ask here which route a URL takes (proxy.ts) and use the one trusted secure context
 * (tls-trust.ts). The door sets the resolver once (createServices); until then the environment's
 * proxy variables apply.
 */
import type { ClientRequest } from 'node:http';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';

import { Agent as AgentBase, type AgentConnectOpts } from 'agent-base';
import { HttpsProxyAgent } from 'https-proxy-agent';
import { Agent as UndiciAgent, type Dispatcher, fetch as undiciFetch, ProxyAgent } from 'undici';

import { redactor } from '../log.js';
import { envProxyResolver, type ProxyResolver, type ProxyRoute } from './proxy.js';
import { trustedContext } from './tls-trust.js';

/** How long one origin's route is reused before the resolver is asked again. */
const ROUTE_TTL_MS = 60_000;

let resolver: ProxyResolver | undefined;
const routes = new Map<string, { route: Promise<ProxyRoute>; until: number }>();
/** The proxy each host (host:port) was last reached through, for what a failure says. */
const proxiedHosts = new Map<string, URL>();

/** Sets how this process finds its proxy (the door's choice); forgets routes already found. */
export function configureNetwork(resolve: ProxyResolver): void {
  resolver = resolve;
  routes.clear();
  proxiedHosts.clear();
}

/** The route for a URL, asked once per origin a minute. */
export function routeFor(url: URL): Promise<ProxyRoute> {
  const now = Date.now();
  const cached = routes.get(url.origin);
  if (cached && cached.until > now) return cached.route;
  resolver ??= envProxyResolver(process.env);
  const route = resolver(url);
  routes.set(url.origin, { route, until: now + ROUTE_TTL_MS });
  route.then(
    (r) =>
      r.kind === 'proxy' ? proxiedHosts.set(url.host, r.proxy) : proxiedHosts.delete(url.host),
    // A failed answer is not kept: the next request asks again.
    () => routes.delete(url.origin),
  );
  return route;
}

/**
 * Why a request to `host` got no answer, as the user should read it: when it went through a
 * proxy, the socket that failed was the proxy's, and the reason says so ("through the proxy
 * proxy.corp:3128: connection refused"). An S3 host matches its virtual-hosted names
 * (bucket.s3.region.amazonaws.com).
 */
export function reasonOnRoute(host: string, reason: string): string {
  let proxy = proxiedHosts.get(host);
  if (!proxy) {
    for (const [known, via] of proxiedHosts) if (known.endsWith(`.${host}`)) proxy = via;
  }
  return proxy ? `through the proxy ${proxy.host}: ${reason}` : reason;
}

/** A proxy URL's password, kept out of every log line. */
function guardCredentials(proxy: URL): void {
  if (proxy.password) redactor.add(decodeURIComponent(proxy.password));
}

const dispatchers = new Map<string, Dispatcher>();

/** The undici dispatcher for a route, one per proxy for the life of the process. */
function dispatcherFor(route: ProxyRoute): Dispatcher {
  const key = route.kind === 'direct' ? 'direct' : route.proxy.href;
  let dispatcher = dispatchers.get(key);
  if (!dispatcher) {
    const tls = { secureContext: trustedContext() };
    if (route.kind === 'direct') {
      dispatcher = new UndiciAgent({ connect: tls });
    } else {
      guardCredentials(route.proxy);
      dispatcher = new ProxyAgent({ uri: route.proxy.href, requestTls: tls, proxyTls: tls });
    }
    dispatchers.set(key, dispatcher);
  }
  return dispatcher;
}

/** `fetch` over the process's routes and trusted certificates: what the service client uses. */
export const networkFetch: typeof fetch = async (input, init) => {
  const url = new URL(input instanceof Request ? input.url : String(input));
  const dispatcher = dispatcherFor(await routeFor(url));
  const response = await undiciFetch(url, {
    ...(init as Parameters<typeof undiciFetch>[1]),
    dispatcher,
  });
  return response as unknown as Response;
};

/**
 * An http(s) agent for the S3 client that routes each new connection: straight to the host
 * (a keep-alive agent) or through the proxy as a CONNECT tunnel, for http and https endpoints
 * alike (a tunnel passes the request through untouched). Sockets are pooled by the agent of the
 * route.
 */
class RoutingAgent extends AgentBase {
  readonly #secure: boolean;
  readonly #maxSockets: number;
  readonly #agents = new Map<string, HttpAgent>();

  constructor(secure: boolean, maxSockets: number) {
    super({ keepAlive: true });
    this.#secure = secure;
    this.#maxSockets = maxSockets;
  }

  override isSecureEndpoint(): boolean {
    return this.#secure;
  }

  override async connect(_req: ClientRequest, options: AgentConnectOpts): Promise<HttpAgent> {
    const scheme = this.#secure ? 'https' : 'http';
    const host = options.host?.includes(':') ? `[${options.host}]` : options.host;
    const route = await routeFor(new URL(`${scheme}://${host}:${options.port}`));
    // The options go on to the route's agent; a proxy agent takes the target's TLS settings from
    // them, not from its own.
    if (this.#secure) (options as { secureContext?: unknown }).secureContext = trustedContext();
    return this.#agentFor(route);
  }

  #agentFor(route: ProxyRoute): HttpAgent {
    const key = route.kind === 'direct' ? 'direct' : route.proxy.href;
    let agent = this.#agents.get(key);
    if (!agent) {
      const common = { keepAlive: true, maxSockets: this.#maxSockets };
      const secureContext = this.#secure || route.kind === 'proxy' ? trustedContext() : undefined;
      if (route.kind === 'direct') {
        agent = this.#secure ? new HttpsAgent({ ...common, secureContext }) : new HttpAgent(common);
      } else {
        guardCredentials(route.proxy);
        agent = new HttpsProxyAgent(route.proxy, { ...common, secureContext });
      }
      this.#agents.set(key, agent);
    }
    return agent;
  }

  override destroy(): void {
    for (const agent of this.#agents.values()) agent.destroy();
    super.destroy();
  }
}

/** The S3 client's agents: each request routed as the process's proxy settings say. */
export function routedAgents(maxSockets: number): { httpAgent: HttpAgent; httpsAgent: HttpsAgent } {
  return {
    httpAgent: new RoutingAgent(false, maxSockets),
    httpsAgent: new RoutingAgent(true, maxSockets) as unknown as HttpsAgent,
  };
}
