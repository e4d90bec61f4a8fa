/**
 * Fetches a release feed over HTTP(S) and reads it, over the process's routes like every other
 * request (network/routes.ts: the proxy the OS or the environment names, the trusted CAs).
 */
import { certificateProblem, networkReason } from '../network/reachability.js';
import { networkFetch, reasonOnRoute } from '../network/routes.js';
import { FeedError, parseReleaseFeed, type ReleaseFeed } from './release-feed.js';

/** The `fetch` a feed check uses (the process's routed fetch unless a test gives its own). */
export type FeedFetch = (url: string, init: RequestInit) => Promise<Response>;

/** How long a feed may take to answer, body included, before the check gives up. */
export const FEED_TIMEOUT_MS = 15_000;
/** A feed is a few hundred bytes; anything far larger is not one. */
const MAX_FEED_BYTES = 1024 * 1024;

/** Fetches and reads the feed file at `url`; every failure is a `FeedError` with one line. */
export async function fetchReleaseFeed(
  url: string,
  options: { fetch?: FeedFetch; timeoutMs?: number } = {},
): Promise<ReleaseFeed> {
  const timeoutMs = options.timeoutMs ?? FEED_TIMEOUT_MS;
  const doFetch: FeedFetch = options.fetch ?? ((input, init) => networkFetch(input, init));
  const signal = AbortSignal.timeout(timeoutMs);
  const timedOut = () =>
    new FeedError(
      `The release feed at ${url} did not answer within ${seconds(timeoutMs)}: try again later.`,
    );
  let response: Response;
  try {
    response = await doFetch(url, {
      signal,
      redirect: 'follow',
      // A cached feed would hide a new release.
      headers: { 'cache-control': 'no-cache', accept: 'application/x-yaml, text/yaml, */*' },
    });
  } catch (error) {
    if (signal.aborted) throw timedOut();
    throw new FeedError(
      `Could not reach the release feed at ${url} (${causeOf(url, error)}): check the network connection and try again.`,
      { cause: error },
    );
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    const status = `${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
    throw new FeedError(
      response.status === 404
        ? `The release feed at ${url} answered 404 Not Found: no release is published there yet.`
        : `The release feed at ${url} answered ${status}: try again later.`,
    );
  }
  let text: string;
  try {
    text = await readText(response, url);
  } catch (error) {
    if (error instanceof FeedError) throw error;
    if (signal.aborted) throw timedOut();
    throw new FeedError(
      `The release feed at ${url} broke off (${causeOf(url, error)}): try again.`,
      {
        cause: error,
      },
    );
  }
  return parseReleaseFeed(text, url);
}

async function readText(response: Response, url: string): Promise<string> {
  if (!response.body) return '';
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes += value.byteLength;
    if (bytes > MAX_FEED_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw new FeedError(`The release feed at ${url} is larger than 1 MiB: it is not a feed.`);
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** Why a request got no answer, in the words every other request uses. */
function causeOf(url: string, error: unknown): string {
  let host = url;
  try {
    host = new URL(url).host;
  } catch {
    // the URL's own error says more
  }
  return certificateProblem(error) ?? reasonOnRoute(host, networkReason(error));
}
