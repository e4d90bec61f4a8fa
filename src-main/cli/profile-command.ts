import { parseArgs } from 'node:util';

import { testConnection } from '../core/connection-test.js';
import { UsageError } from '../core/errors.js';
import { type Environment, ENVIRONMENTS, ProfileError } from '../core/profiles/profile.js';
import { SECRET_ENV, type SecretName } from '../core/secrets/secret-store.js';
import { cliServices, table, withConnection } from './cli-services.js';
import type { CliIO, Command } from './command.js';

const USAGE = [
  'courier profile add NAME --base-url URL --client-id ID --bucket NAME --region R',
  '                         --access-key-id ID [--s3-endpoint URL]',
  '                         [--env development|staging|production] [--catalog ID[=NAME]]...',
  '       courier profile list [--json]',
  '       courier profile remove NAME',
  '       courier profile test NAME [--json]',
].join('\n');

/** `courier profile`: add, list, remove and test the connections to the service. */
export const profileCommand: Command = {
  summary: 'add, list, remove or test profiles (secrets go to the OS keychain)',
  usage: USAGE,
  async run(args, io) {
    const [verb, ...rest] = args;
    if (verb === 'add') return add(rest, io);
    if (verb === 'list') return list(rest, io);
    if (verb === 'remove') return remove(rest, io);
    if (verb === 'test') return test(rest, io);
    throw new UsageError(`expected add, list, remove or test (usage: ${USAGE})`);
  },
};

async function add(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      'base-url': { type: 'string' },
      'client-id': { type: 'string' },
      bucket: { type: 'string' },
      region: { type: 'string' },
      'access-key-id': { type: 'string' },
      's3-endpoint': { type: 'string' },
      env: { type: 'string', default: 'production' },
      catalog: { type: 'string', multiple: true, default: [] },
    },
  });
  const [name] = positionals;
  if (!name || positionals.length > 1) throw new UsageError('give exactly one profile NAME');
  for (const flag of ['base-url', 'client-id', 'bucket', 'region', 'access-key-id'] as const) {
    if (!values[flag]) throw new UsageError(`--${flag} is required`);
  }
  if (!ENVIRONMENTS.includes(values.env as Environment)) {
    throw new UsageError(`--env must be development, staging or production, not ${values.env}`);
  }
  const catalogs = values.catalog.map((spec) => {
    const [id = '', ...label] = spec.split('=');
    return { id: id.trim(), name: label.join('=').trim() || id.trim() };
  });
  const services = await cliServices(io, 'profile add');
  const secrets: Record<SecretName, string> = {
    client_secret: await secretFrom(io, 'client_secret', 'Client secret: '),
    secret_access_key: await secretFrom(io, 'secret_access_key', 'S3 secret access key: '),
  };
  try {
    const profile = await services.profiles.save(
      {
        name,
        environment: values.env as Environment,
        base_url: values['base-url']!,
        client_id: values['client-id']!,
        bucket: {
          bucket_name: values.bucket!,
          bucket_region: values.region!,
          access_key_id: values['access-key-id']!,
          ...(values['s3-endpoint'] ? { endpoint: values['s3-endpoint'] } : {}),
        },
        catalogs,
      },
      secrets,
    );
    await services.log.log('info', 'profile saved', { profile: profile.name });
    io.err(
      `Saved profile "${profile.name}" (${profile.environment}); secrets are in the OS keychain.`,
    );
    return 0;
  } catch (error) {
    if (error instanceof ProfileError) throw new UsageError(error.message);
    throw error;
  }
}

/** A secret from its environment variable, else asked for (never from argv). */
async function secretFrom(io: CliIO, name: SecretName, question: string): Promise<string> {
  const fromEnv = io.env[SECRET_ENV[name]];
  if (fromEnv) return fromEnv;
  const answer = await io.ask(question, { secret: true });
  if (!answer) {
    throw new UsageError(`no ${name}: type it when asked, or set ${SECRET_ENV[name]}`);
  }
  return answer;
}

async function list(args: string[], io: CliIO): Promise<number> {
  const { values } = parseArgs({ args, options: { json: { type: 'boolean', default: false } } });
  const services = await cliServices(io, 'profile list');
  const profiles = await services.profiles.list();
  const withStatus = await Promise.all(
    profiles.map(async (profile) => ({
      ...profile,
      secrets: await services.profiles.secretStatus(profile),
    })),
  );
  const invalid = await services.profiles.invalid();
  if (values.json) {
    io.out(JSON.stringify(withStatus, null, 2));
    for (const bad of invalid) io.err(`profile "${bad.name}" can't be used: ${bad.message}`);
    return 0;
  }
  const setOrNot = (set: boolean) => (set ? 'set' : 'NOT SET');
  io.out(
    table(
      ['NAME', 'ENVIRONMENT', 'BASE URL', 'BUCKET', 'CATALOGS', 'SECRETS'],
      withStatus.map((p) => [
        p.name,
        p.environment,
        p.sandbox ? 'embedded sandbox' : p.base_url,
        p.bucket.bucket_name,
        String(p.catalogs.length),
        p.secrets.keychain
          ? 'keychain unreadable'
          : `client ${setOrNot(p.secrets.client_secret)}, S3 ${setOrNot(p.secrets.secret_access_key)}`,
      ]),
    ),
  );
  const unreadable = withStatus.find((p) => p.secrets.keychain)?.secrets.keychain;
  if (unreadable) io.err(unreadable);
  // Edited by hand into something Courier would not save: listed, never used.
  for (const bad of invalid) {
    io.out(`${bad.name}: can't be used: ${bad.message} (add it again to fix it, or remove it)`);
  }
  return 0;
}

async function remove(args: string[], io: CliIO): Promise<number> {
  const { positionals } = parseArgs({ args, allowPositionals: true, options: {} });
  const [name] = positionals;
  if (!name || positionals.length > 1) throw new UsageError('give exactly one profile NAME');
  const services = await cliServices(io, 'profile remove');
  await services.profiles.remove(name);
  await services.log.log('info', 'profile removed', { profile: name });
  io.err(`Removed profile "${name}" and its secrets.`);
  return 0;
}

async function test(args: string[], io: CliIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false } },
  });
  const [name] = positionals;
  if (!name || positionals.length > 1) throw new UsageError('give exactly one profile NAME');
  const services = await cliServices(io, 'profile test');
  const report = await withConnection(services, name, testConnection);
  await services.log.log(report.ok ? 'info' : 'warn', 'connection tested', {
    profile: name,
    checks: report.checks.map(({ id, ok }) => ({ id, ok })),
  });
  if (values.json) {
    io.out(JSON.stringify(report, null, 2));
  } else {
    for (const check of report.checks) {
      io.out(`${check.ok ? '✓' : '✗'} ${check.label}: ${check.detail} (${check.ms} ms)`);
      if (check.hint) io.out(`    ${check.hint}`);
    }
  }
  return report.ok ? 0 : 1;
}
