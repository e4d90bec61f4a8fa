/**
 * What the page's WebSocket `send` of a save costs as the app benches drive Chromium, against a
 * Chromium no DevTools client watches. Playwright always turns on DevTools' Network domain, which
 * copies every WebSocket frame to it: a 300 KB send (a save's patch of 100 edited rows) took
 * 17–22 ms so, and 10–15 ms unwatched. Sends are most of the longest pauses `app-figures.ts`
 * counts once a bulk edit is saved; the benches print both costs, measured in the same run, so
 * that a pause is read for what a user of the browser host gets (the app's IPC sends no text).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { WebSocket, WebSocketServer } from 'ws';

import { CHROMIUM_PATH, launchChromium } from '../../test/support/chromium.js';

/** Median milliseconds of one send, driven by Playwright and in a Chromium nobody watches. */
export interface SendCost {
  bytes: number;
  driven: number;
  plain: number;
}

/** The page's probe: median time of `sends` WebSocket sends of a `bytes`-long save-like text. */
function probe(port: number, bytes: number, sends: number): string {
  return `(async () => {
    const ws = new WebSocket('ws://127.0.0.1:${port}');
    await new Promise((resolve) => (ws.onopen = resolve));
    const row = JSON.stringify({ id: 'r', draft: { title: { value: 'A title', source: { kind: 'tag', tag: 'TITLE' } } } });
    const text = '['.concat(Array.from({ length: Math.ceil(${bytes} / row.length) }, () => row).join(',')).slice(0, ${bytes});
    const times = [];
    for (let i = 0; i < ${sends}; i++) {
      const t0 = performance.now();
      ws.send(text);
      times.push(performance.now() - t0);
      await new Promise((resolve) => setTimeout(resolve, 30));
    }
    ws.close();
    return times.sort((a, b) => a - b)[Math.floor(${sends} / 2)];
  })()`;
}

/** Measures a send of `bytes` (a save's patch of edited rows is about 300 KB) both ways. */
export async function measureSendCost(bytes = 300_000, sends = 15): Promise<SendCost> {
  const server = createServer((_, response) => {
    response.setHeader('content-type', 'text/html');
    response.end('<!doctype html><title>send</title>');
  });
  const sockets = new WebSocketServer({ server });
  sockets.on('connection', (socket) => socket.on('message', () => undefined));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const expression = probe(port, bytes, sends);
  try {
    const browser = await launchChromium();
    let driven: number;
    try {
      const page = await browser.newPage();
      await page.goto(`http://127.0.0.1:${port}/`);
      driven = (await page.evaluate(expression)) as number;
    } finally {
      await browser.close();
    }
    return { bytes, driven, plain: await plainSend(port, expression) };
  } finally {
    sockets.close();
    server.close();
  }
}

/** A page DevTools lists. */
interface Target {
  type: string;
  url: string;
  webSocketDebuggerUrl: string;
}

/** The probe in a Chromium reached over a bare DevTools socket: Runtime only, no Network. */
async function plainSend(port: number, expression: string): Promise<number> {
  const profile = await mkdtemp(join(tmpdir(), 'courier-bench-send-'));
  const chrome = spawn(
    CHROMIUM_PATH,
    [
      '--headless=new',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      `--user-data-dir=${profile}`,
      '--remote-debugging-port=0',
      `http://127.0.0.1:${port}/`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  try {
    const browserUrl = await new Promise<string>((resolve, reject) => {
      let output = '';
      chrome.stderr.on('data', (chunk: Buffer) => {
        output += String(chunk);
        const match = /DevTools listening on (ws:\/\/\S+)/.exec(output);
        if (match) resolve(match[1]!);
      });
      chrome.once('exit', (code) => reject(new Error(`chromium exited (${code}): ${output}`)));
    });
    const http = new URL(browserUrl);
    let target: Target | undefined;
    for (let tries = 0; !target && tries < 50; tries++) {
      const list = (await (await fetch(`http://${http.host}/json/list`)).json()) as Target[];
      target = list.find((t) => t.type === 'page' && t.url.startsWith(`http://127.0.0.1:${port}`));
      if (!target) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    if (!target) throw new Error('chromium opened no page');
    const devtools = new WebSocket(target.webSocketDebuggerUrl);
    await new Promise((resolve, reject) => {
      devtools.once('open', resolve);
      devtools.once('error', reject);
    });
    let id = 0;
    const evaluate = async (text: string): Promise<unknown> => {
      const asked = ++id;
      const answer = new Promise<string>((resolve) => {
        const onMessage = (data: unknown) => {
          if ((JSON.parse(String(data)) as { id?: number }).id !== asked) return;
          devtools.off('message', onMessage);
          resolve(String(data));
        };
        devtools.on('message', onMessage);
      });
      devtools.send(
        JSON.stringify({
          id: asked,
          method: 'Runtime.evaluate',
          params: { expression: text, awaitPromise: true, returnByValue: true },
        }),
      );
      const reply = JSON.parse(await answer) as { result?: { result?: { value?: unknown } } };
      return reply.result?.result?.value;
    };
    try {
      // The page may still be loading when it is listed: evaluated once it has loaded.
      for (let tries = 0; (await evaluate('document.readyState')) !== 'complete'; tries++) {
        if (tries > 50) throw new Error('the page did not load');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // Headless Chromium may replace the page's context once after it loaded: asked again.
      for (let tries = 0; tries < 3; tries++) {
        const value = await evaluate(expression);
        if (typeof value === 'number') return value;
      }
      throw new Error('the send probe gave no time');
    } finally {
      devtools.close();
    }
  } finally {
    if (chrome.exitCode === null && chrome.signalCode === null) {
      const exited = new Promise((resolve) => chrome.once('exit', resolve));
      chrome.kill();
      await exited;
    }
    // Its helper processes may still be writing a moment after it exits.
    await rm(profile, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  }
}
