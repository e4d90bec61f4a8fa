import { createInterface } from 'node:readline';

let piped: AsyncIterator<string> | null = null;

/**
 * Asks a question on stderr. On a terminal a secret is typed without echo; when stdin is a
 * pipe, the next line is read (so a script can feed secrets without putting them in argv).
 */
export async function ask(question: string, options: { secret?: boolean } = {}): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    piped ??= createInterface({ input: stdin, terminal: false })[Symbol.asyncIterator]();
    const next = await piped.next();
    return next.done ? '' : next.value.trim();
  }
  process.stderr.write(question);
  if (!options.secret) {
    const rl = createInterface({ input: stdin, output: process.stderr });
    return new Promise((resolve) => rl.once('line', (line) => (rl.close(), resolve(line.trim()))));
  }
  return new Promise((resolve, reject) => {
    let value = '';
    stdin.setRawMode(true);
    stdin.resume();
    stdin.setEncoding('utf8');
    const done = (result: string | Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      process.stderr.write('\n');
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') return done(value);
        if (char === '\u0003') return done(new Error('cancelled'));
        if (char === '\u007f' || char === '\b') value = value.slice(0, -1);
        else value += char;
      }
    };
    stdin.on('data', onData);
  });
}
