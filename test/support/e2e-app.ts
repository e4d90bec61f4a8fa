/**
 * One e2e test file's app: a temporary home (masters and Courier's data folder), headless
 * Chromium, and the browser host serving the app from its own process, as a user starts it.
 * Every e2e file needs the same setup and the same teardown; this keeps them in one place.
 */
import { once } from 'node:events';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Browser, BrowserContextOptions, Locator, Page } from 'playwright-core';

import type { SandboxInfo } from '../../src-main/core/sandbox/index.js';
import { launchChromium } from './chromium.js';
import { startWebHostProcess, type WebHostProcess } from './web-host-process.js';

export class E2eApp {
  /** The folder the host serves (`--root`): fixtures go below it. */
  readonly masters: string;
  /** Courier's data folder (COURIER_HOME) for every host this app starts. */
  readonly data: string;
  #browser: Browser | undefined;
  #page: Page | undefined;
  #host: WebHostProcess | undefined;

  private constructor(readonly home: string) {
    this.masters = join(home, 'masters');
    this.data = join(home, 'data');
  }

  /** Makes the temporary home; `prefix` names it, to tell test runs apart in tmp. */
  static async create(prefix: string): Promise<E2eApp> {
    return new E2eApp(await mkdtemp(join(tmpdir(), prefix)));
  }

  /** The page opened by `open`. */
  get page(): Page {
    if (!this.#page) throw new Error('E2eApp.open() has not run');
    return this.#page;
  }

  /** The running host. */
  get host(): WebHostProcess {
    if (!this.#host) throw new Error('no browser host runs');
    return this.#host;
  }

  /** Launches Chromium, starts the host and shows the app in a new page. */
  async open(pageOptions: BrowserContextOptions): Promise<Page> {
    this.#browser = await launchChromium();
    this.#page = await this.#browser.newPage(pageOptions);
    await this.openHost();
    return this.#page;
  }

  /**
   * Starts a host on the same folders and loads the app from it into the page, waiting until
   * the app says it talks to the browser host. After `crashHost`, this is the restart.
   */
  async openHost(): Promise<void> {
    this.#host = await startWebHostProcess(['--port', '0', '--root', this.masters], {
      COURIER_HOME: this.data,
    });
    await this.page.goto(this.#host.url);
    await this.page.getByTestId('connection').getByText('Browser host').waitFor();
  }

  /** The main navigation's button that shows a view. */
  nav(label: string): Locator {
    return this.page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('button', { name: label, exact: true });
  }

  /**
   * Waits until the embedded sandbox is the active profile: it is from the first launch, with no
   * profile of the user's own (a test that made one chooses the Sandbox in Connect).
   */
  async useSandboxProfile(): Promise<void> {
    await this.page.getByTestId('active-profile').getByText('Sandbox').waitFor();
  }

  /** Clears the library as a user does (Clear…, then Clear when asked) and waits until it is empty. */
  async clearLibrary(): Promise<void> {
    await this.page.getByRole('button', { name: 'Clear…' }).click();
    await this.page
      .getByRole('group', { name: 'Clear the library?' })
      .getByRole('button', { name: 'Clear' })
      .click();
    await this.page.locator('[role="row"][data-row-id]').first().waitFor({ state: 'detached' });
  }

  /** Adds a folder in the Library view and waits until its `tracks` tracks are listed and read. */
  async addFolder(dir: string, tracks: number): Promise<void> {
    await this.page.getByTestId('add-folder').setInputFiles(dir);
    await this.page.getByTestId('library-summary').getByText(`${tracks} tracks`).waitFor();
    await this.page.getByTestId('read-progress').waitFor({ state: 'detached' });
  }

  /** Kills the host without letting it clean up (SIGKILL), as a crash does. */
  async crashHost(): Promise<void> {
    const { process } = this.host;
    this.#host = undefined;
    process.kill('SIGKILL');
    await once(process, 'exit');
  }

  /** Where the host's embedded sandbox listens, with its credentials (from running.json). */
  async sandbox(): Promise<SandboxInfo> {
    const running = await readFile(join(this.data, 'sandbox', 'running.json'), 'utf8');
    return (JSON.parse(running) as { info: SandboxInfo }).info;
  }

  /** The data of one of the embedded sandbox's inspection routes (/sandbox/…). */
  async inspect(path: string): Promise<Array<Record<string, unknown>>> {
    const { base_url, client_id, client_secret } = await this.sandbox();
    const tokenAnswer = await fetch(`${base_url}/oauth/access_tokens/client`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id, client_secret }),
    });
    const token = ((await tokenAnswer.json()) as { data: { token: string } }).data.token;
    const answer = await fetch(`${base_url}${path}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    return ((await answer.json()) as { data: Array<Record<string, unknown>> }).data;
  }

  /** Closes what was opened, also after a setup that failed half-way, and removes the home. */
  async close(): Promise<void> {
    await this.#browser?.close();
    await this.#host?.stop();
    await rm(this.home, { recursive: true, force: true });
  }
}
