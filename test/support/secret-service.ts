import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A private, unlocked Secret Service (gnome-keyring on its own D-Bus session bus). */
export interface SecretService {
  /** Environment that points a process at this Secret Service. */
  env: { DBUS_SESSION_BUS_ADDRESS: string };
  stop(): Promise<void>;
}

/**
 * Starts a real Secret Service for the tests, never the developer's own keychain: a session
 * bus and gnome-keyring with a fresh login keyring in a temp HOME. Resolves to null, with the
 * reason, where the machine lacks dbus-daemon or gnome-keyring-daemon.
 */
export async function startSecretService(): Promise<SecretService | { missing: string }> {
  // Now and then gnome-keyring comes up without creating its login keyring (seen on a loaded
  // machine); a fresh start in a fresh HOME has always worked, so try a few times.
  let result: SecretService | { missing: string } = { missing: 'not started' };
  for (let attempt = 0; attempt < 3; attempt++) {
    result = await startOnce();
    if (!('missing' in result) || /not installed/.test(result.missing)) return result;
  }
  return result;
}

async function startOnce(): Promise<SecretService | { missing: string }> {
  const home = await mkdtemp(join(tmpdir(), 'courier-keyring-'));
  const pids: number[] = [];
  const stop = async () => {
    for (const pid of pids) process.kill(pid, 'SIGTERM');
    await rm(home, { recursive: true, force: true });
  };
  try {
    // dbus-daemon forks into the background and prints its address and pid.
    const [address = '', pid = ''] = (
      await output('dbus-daemon', ['--session', '--fork', '--print-address=1', '--print-pid=1'])
    ).split('\n');
    pids.push(Number(pid));
    const env = {
      ...process.env,
      HOME: home,
      XDG_DATA_HOME: join(home, 'share'),
      XDG_RUNTIME_DIR: home,
      DBUS_SESSION_BUS_ADDRESS: address,
    };
    // gnome-keyring forks into the background, creates the login keyring (unlocked with the
    // password read from stdin) and quits when its session bus goes away.
    await output(
      'gnome-keyring-daemon',
      ['--unlock', '--components=secrets'],
      env,
      'courier-tests',
    );
    await defaultCollectionReady(env);
    return { env: { DBUS_SESSION_BUS_ADDRESS: address }, stop };
  } catch (error) {
    await stop();
    return { missing: (error as Error).message };
  }
}

/**
 * Waits until the Secret Service has a default collection: on a busy machine the daemon answers
 * before the login keyring exists, and a secret stored then fails ("no result found").
 */
async function defaultCollectionReady(env: NodeJS.ProcessEnv): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const answer = await output(
      'dbus-send',
      [
        '--session',
        '--print-reply',
        '--dest=org.freedesktop.secrets',
        '/org/freedesktop/secrets',
        'org.freedesktop.Secret.Service.ReadAlias',
        'string:default',
      ],
      env,
    ).catch(() => '');
    // The reply names the collection's object path; "/" means there is none yet.
    if (/object path "\/org\/freedesktop\/secrets\/collection\//.test(answer)) return;
    if (Date.now() > deadline) throw new Error('gnome-keyring did not create its login keyring');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Runs a command to its end and resolves with what it printed; rejects when it can't. */
function output(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = process.env,
  input = '',
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'ignore'] });
    let text = '';
    child.stdout.on('data', (chunk) => (text += chunk));
    child.once('error', () => reject(new Error(`${command} is not installed`)));
    child.once('close', (code) =>
      code === 0 ? resolve(text.trim()) : reject(new Error(`${command} exited with ${code}`)),
    );
    child.stdin.on('error', () => undefined); // a daemon that forks may not read it
    child.stdin.end(input);
  });
}
