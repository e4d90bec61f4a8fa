// `npm run dist` after the build: electron-builder with electron-builder.yml, its release feed
// chosen by the build environment (scripts/release-feed.mjs). Writes the installers and, with a
// feed, the latest*.yml feed files into release/; uploading them is a separate step (README).
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { build } from 'electron-builder';
import { parse, stringify } from 'yaml';

import { releaseFeeds } from './release-feed.mjs';

const config = parse(await readFile('electron-builder.yml', 'utf8'));
config.publish = releaseFeeds(config.publish, process.env);
console.log(
  config.publish
    ? `Release feed: ${config.publish.map((entry) => entry.provider).join(', ')}`
    : 'Release feed: none (set COURIER_UPDATE_URL, or COURIER_UPDATE_S3_BUCKET and COURIER_UPDATE_S3_REGION); the app will say updates are not configured',
);
// A config object would be merged into electron-builder.yml, `publish` list and all; a file
// given by path replaces it (paths in it stay relative to the project).
const configFile = join(await mkdtemp(join(tmpdir(), 'courier-dist-')), 'electron-builder.yml');
await writeFile(configFile, stringify(config));
await build({ config: configFile, publish: 'never', ...cliTargets(process.argv.slice(2)) });

/** `--mac`, `--win`, `--linux`, `--x64`, `--arm64` as electron-builder's CLI takes them. */
function cliTargets(args) {
  const platforms = { '--mac': 'mac', '--win': 'win', '--linux': 'linux' };
  const options = {};
  for (const arg of args) {
    if (platforms[arg]) options[platforms[arg]] = [];
    else if (arg === '--x64' || arg === '--arm64') options[arg.slice(2)] = true;
    else throw new Error(`npm run dist: unknown option ${arg}`);
  }
  return options;
}
