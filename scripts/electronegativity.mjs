// `npm run audit:electron`: runs Doyensec's Electronegativity over the app's sources and fails
// on any finding that docs/security.md does not explain. Explained findings are the rows of its
// "Electronegativity findings" table: | `CHECK_ID` | `file` | why it stays |.
// The tool is driven through its API: its CLI breaks on the hoisted commander (it never
// declares the dependency), and the Electron version is given so it doesn't look it up online.
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const run = require('@doyensec/electronegativity');
const root = join(import.meta.dirname, '..');
const SOURCES = ['package.json', 'src-main', 'src-renderer'];

const stage = await mkdtemp(join(tmpdir(), 'courier-electronegativity-'));
try {
  // A copy of just the sources: the tool would otherwise scan dist/, test fixtures and tools.
  for (const source of SOURCES)
    await cp(join(root, source), join(stage, source), { recursive: true });
  const electronVersion = require('electron/package.json').version;
  const result = await run(
    {
      input: stage,
      isRelative: true,
      electronVersionOverride: electronVersion,
      // Needs the network (Electron's release list); Dependabot-style updates cover it instead.
      excludeFromScan: ['AvailableSecurityFixesGlobalCheck'],
      parserPlugins: [],
    },
    false,
  );
  const findings = result.issues.map((issue) => ({
    id: issue.id,
    file: issue.file,
    line: issue.location.line,
    severity: issue.severity.name,
    confidence: issue.confidence.name,
    description: issue.description,
  }));
  const artifacts = join(root, 'test', 'artifacts');
  await mkdir(artifacts, { recursive: true });
  await writeFile(
    join(artifacts, 'electronegativity.json'),
    `${JSON.stringify(findings, null, 2)}\n`,
  );

  const doc = await readFile(join(root, 'docs', 'security.md'), 'utf8');
  const explained = new Set(
    [...doc.matchAll(/^\|\s*`([A-Z_]+)`\s*\|\s*`([^`]+)`\s*\|/gm)].map(
      ([, id, file]) => `${id} ${file}`,
    ),
  );
  const unexplained = findings.filter((f) => !explained.has(`${f.id} ${f.file}`));
  const found = new Set(findings.map((f) => `${f.id} ${f.file}`));
  const stale = [...explained].filter((key) => !found.has(key));
  const broken = result.errors.filter((error) => !error.tolerable);

  console.log(
    `electronegativity ${require('@doyensec/electronegativity/package.json').version} (Electron ${electronVersion}): ` +
      `${result.globalChecks + result.atomicChecks} checks, ${findings.length} finding(s), ` +
      `${findings.length - unexplained.length} explained in docs/security.md`,
  );
  for (const error of broken) console.log(`  could not parse ${error.file}: ${error.message}`);
  for (const key of stale) console.log(`  no longer found (remove from docs/security.md): ${key}`);
  for (const f of unexplained) {
    console.log(
      `  UNEXPLAINED ${f.id} ${f.file}:${f.line} [${f.severity}/${f.confidence}] ${f.description}`,
    );
  }
  if (unexplained.length > 0 || broken.length > 0) {
    console.log('Fix each finding, or explain why it stays in docs/security.md.');
    process.exitCode = 1;
  }
} finally {
  await rm(stage, { recursive: true, force: true });
}
