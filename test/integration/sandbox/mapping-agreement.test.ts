/**
 * The client's mapping checker against the service's own (the sandbox, the oracle): random
 * mappings in and around the 4.4 shape, from YAML, from `--separator/--columns` and from the
 * builder, and random file names. They must agree on whether the mapping is accepted and on
 * which file names are refused; the bulk through the sandbox's functions, a few over HTTP.
 */
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';

import { UsageError } from '../../../src-main/core/errors.js';
import {
  applyFileNameMapping,
  type FileNameMapping,
  mappingFromBuilder,
  mappingFromOptions,
  mappingPositions,
  mappingProblem,
  mappingToYaml,
  parseMappingYaml,
} from '../../../src-main/core/model/filename-mapping.js';
import { ApiError } from '../../../src-main/core/sandbox/http-kit.js';
import {
  applyMapping,
  type FilenameMapping,
  parseMapping,
} from '../../../src-main/core/sandbox/mapping-parser.js';
import { startTestSandbox, type TestSandbox } from '../../support/sandbox.js';

// Seeded, so that a failure reproduces; FC_SEED overrides it to explore further.
const seed = Number(process.env.FC_SEED ?? 1414);

const fields = ['outer_id', 'title', 'isrc', 'release_date', 'artist_name'];
const separators = ['_', '-', ' - ', '.', ' ', '__', '#', "'", '"', ':', '\n', '\t', '', 'é'];

/** A separator value as YAML may hold it: mostly good strings, sometimes not a string. */
const separatorValue = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...separators) },
  { weight: 2, arbitrary: fc.string({ maxLength: 3 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<unknown>(1, 0, null, true, ['_'], { a: '_' }, 1.5),
  },
);

const columnKey = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 0, max: 5 }).map((n) => `column_${n}`) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'column_01',
      'column_00',
      'column_',
      'Column_0',
      'col0',
      'column_-1',
      'column_1.5',
      'column_ 1',
      'column_12',
      'separator',
      'mapping',
      `column_${'9'.repeat(30)}`,
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
);

const columnValue = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom<unknown>(...fields) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<unknown>('genre', 'Title', 'outer_id ', '', 1, null, [], {}, [
      'outer_id',
    ]),
  },
);

/** One entry of the `mapping:` list: mostly single-key objects, sometimes anything else. */
const entry = fc.oneof(
  { weight: 3, arbitrary: separatorValue.map((separator) => ({ separator })) },
  {
    weight: 8,
    arbitrary: fc.tuple(columnKey, columnValue).map(([key, value]) => ({ [key]: value })),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom<unknown>(
      {},
      { separator: '_', column_0: 'outer_id' },
      'column_0',
      null,
      ['separator', '_'],
      3,
    ),
  },
);

/** A 4.4 document the service accepts: one separator, outer_id and other fields, gaps or not. */
const wellFormed = fc
  .tuple(
    fc.constantFrom(...separators.filter((s) => s !== '')),
    fc.shuffledSubarray(fields.slice(1), { maxLength: 4 }),
    fc.uniqueArray(fc.nat(7), { minLength: 5, maxLength: 5 }),
    fc.boolean(),
    fc.nat(),
  )
  .map(([separator, others, spread, dense, slot]) => {
    const columns = ['outer_id', ...others];
    const entries: unknown[] = columns.map((field, i) => ({
      [`column_${dense ? i : spread[i]}`]: field,
    }));
    entries.splice(slot % (entries.length + 1), 0, { separator });
    return entries;
  });

/** Entries with one change or none: an entry added, replaced or removed. */
const nearlyWellFormed = fc
  .tuple(wellFormed, fc.nat(), entry, fc.constantFrom('none', 'none', 'add', 'replace', 'remove'))
  .map(([entries, at, extra, change]) => {
    const i = at % entries.length;
    if (change === 'add') entries.splice(i, 0, extra);
    if (change === 'replace') entries.splice(i, 1, extra);
    if (change === 'remove') entries.splice(i, 1);
    return entries;
  });

/** A document in and around the 4.4 shape, as a JS value. */
const documentValue = fc.oneof(
  { weight: 12, arbitrary: nearlyWellFormed.map((mapping) => ({ mapping })) },
  { weight: 4, arbitrary: fc.array(entry, { maxLength: 7 }).map((mapping) => ({ mapping })) },
  {
    weight: 1,
    arbitrary: nearlyWellFormed.map((list) => ({ mapping: list, comment: 'extra top-level key' })),
  },
  {
    weight: 1,
    arbitrary: fc
      .array(entry, { maxLength: 4 })
      .chain((list) =>
        fc.constantFrom<unknown>(
          list,
          { maps: list },
          { mapping: Object.assign({}, ...list.filter((e) => typeof e === 'object')) },
          { mapping: null },
          'mapping',
          null,
        ),
      ),
  },
);

/** Damages YAML text: a character dropped, or one of YAML's special characters put in. */
const damaged = (text: string) =>
  fc
    .tuple(
      fc.nat({ max: Math.max(0, text.length - 1) }),
      fc.constantFrom('', ':', '[', '{', '"', "'", '  ', '-', '&a', '*a', '\n', '#', '\t', '---\n'),
    )
    .map(([at, insert]) => text.slice(0, at) + insert + text.slice(at + (insert === '' ? 1 : 0)));

/** A document and its YAML text: written by the library (block or flow), damaged, or odd. */
const yamlDocument = documentValue.chain((doc) =>
  fc
    .oneof(
      { weight: 6, arbitrary: fc.constant(stringify(doc)) },
      { weight: 2, arbitrary: fc.constant(JSON.stringify(doc) ?? '') },
      { weight: 2, arbitrary: damaged(stringify(doc)) },
      { weight: 1, arbitrary: fc.constantFrom('', 'mapping: [', 'a: 1\na: 2\n', '--- 1\n--- 2\n') },
    )
    .map((text) => ({ text, separator: separatorOf(doc) })),
);

/** The document's separator, when it has a usable one, to build file names that may fit it. */
function separatorOf(doc: unknown): string | undefined {
  const list = (doc as { mapping?: unknown } | null)?.mapping;
  if (!Array.isArray(list)) return undefined;
  const found = list.find(
    (e) => typeof (e as { separator?: unknown } | null)?.separator === 'string',
  );
  return (found as { separator: string } | undefined)?.separator || undefined;
}

/** File names: parts from a small alphabet joined by likely separators, an extension or not. */
const part = fc.oneof(
  fc.constantFrom(
    'ID1',
    'ID2',
    'A',
    'Song',
    'Artist Name',
    '20240101',
    '20240229',
    '20230229',
    '00500101',
    '19991231',
    '2024-01-01',
    ' ',
    '',
    'Caf\u00e9',
    'Cafe\u0301',
    '.',
    'USRC17607839',
  ),
  // eslint-disable-next-line no-control-regex -- keys never hold control characters
  fc.string({ maxLength: 4 }).filter((s) => !/[/\\\u0000-\u001f\u007f-\u009f]/.test(s)),
);

/** File names whose parts are joined mostly by `separator` (when given), else by others. */
const fileNames = (separator?: string) => {
  const joiner = fc.oneof(
    { weight: separator ? 6 : 0, arbitrary: fc.constant(separator ?? '_') },
    { weight: 1, arbitrary: fc.constantFrom('_', '-', ' - ', '.', ' ', '__', '#') },
  );
  const name = fc
    .tuple(
      fc.array(part, { minLength: 1, maxLength: 7 }),
      fc.array(joiner, { minLength: 6, maxLength: 6 }),
      fc.constantFrom('.wav', '.flac', '', '.x.mp3', '.'),
      fc.integer({ min: 0, max: 9 }).map((n) => (n === 0 ? '.' : '')),
    )
    .map(
      ([parts, seps, ext, lead]) =>
        lead + parts.reduce((all, p, i) => (i === 0 ? p : all + seps[i - 1]! + p), '') + ext,
    )
    .filter((n) => n !== '' && n !== '.' && n !== '..');
  return fc.array(name, { maxLength: 8 });
};

type Verdict = { ok: true; mapping: FilenameMapping } | { ok: false; message: string };

/** What the service says of a mapping document. */
function service(text: string): Verdict {
  try {
    return { ok: true, mapping: parseMapping(text) };
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 400) throw error;
    return { ok: false, message: error.message };
  }
}

/** What the client says: its mapping, or the UsageError (any other throw fails the test). */
function client(make: () => FileNameMapping): FileNameMapping | UsageError {
  try {
    return make();
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    expect(error.message).not.toContain('\n');
    return error;
  }
}

/** The service's reading of one delivered name (NFC, as in the key): refused, or its fields. */
function serviceFile(mapping: FilenameMapping, name: string): Record<string, string> | null {
  const key = name.normalize('NFC');
  // The service lists a delivery folder without its hidden files: those are never ingested.
  if (key.startsWith('.')) return null;
  const fields = applyMapping(mapping, key);
  if (typeof fields === 'string') return null;
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, String(v)]));
}

/** Both sides agree on the mapping and on every file name. */
function expectAgreement(
  ours: FileNameMapping | UsageError,
  theirs: Verdict,
  names: string[],
): void {
  if (!theirs.ok || ours instanceof UsageError) {
    expect({
      client: ours instanceof UsageError ? ours.message : 'accepted',
      service: theirs.ok ? 'accepted' : theirs.message,
    }).toEqual({
      client: expect.not.stringMatching(/^accepted$/),
      service: expect.not.stringMatching(/^accepted$/),
    });
    return;
  }
  expect(mappingProblem(ours)).toBeNull();
  // The same mapping: the service reads back exactly what the client would send.
  const positions = mappingPositions(ours);
  expect(theirs.mapping).toEqual({
    separator: ours.separator,
    columns: ours.columns.map((field, i) => ({ index: positions[i], field })),
  });
  expect(parseMapping(mappingToYaml(ours))).toEqual(theirs.mapping);
  for (const name of names) {
    const match = applyFileNameMapping(name, ours);
    expect({ name, fields: match.ok ? match.values : null }).toEqual({
      name,
      fields: serviceFile(theirs.mapping, name),
    });
  }
}

const anySeparator = fc.oneof(fc.constantFrom(...separators), fc.string({ maxLength: 3 }));

describe('the mapping checker agrees with the service', () => {
  it('on random YAML documents and file names', () => {
    fc.assert(
      fc.property(
        yamlDocument.chain(({ text, separator }) =>
          fileNames(separator).map((names) => ({ text, names })),
        ),
        ({ text, names }) => {
          expectAgreement(
            client(() => parseMappingYaml(text)),
            service(text),
            names,
          );
        },
      ),
      { seed, numRuns: 1500 },
    );
  });

  it('on random --separator and --columns', () => {
    const column = fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...fields) },
      { weight: 2, arbitrary: fc.constantFrom('', ' title', 'genre', 'Title') },
    );
    fc.assert(
      fc.property(
        anySeparator.chain((separator) => fc.tuple(fc.constant(separator), fileNames(separator))),
        fc.array(column, { minLength: 1, maxLength: 6 }),
        ([separator, names], columns) => {
          // What the options mean, written as the 4.4 document the service reads.
          const doc = {
            mapping: [
              { separator },
              ...columns.flatMap((c, i) =>
                c.trim() === '' ? [] : [{ [`column_${i}`]: c.trim() }],
              ),
            ],
          };
          expectAgreement(
            client(() => mappingFromOptions(separator, columns.join(','))),
            service(stringify(doc)),
            names,
          );
        },
      ),
      { seed, numRuns: 500 },
    );
  });

  it("on random builder input (the Deliver screen's separator and columns)", () => {
    fc.assert(
      fc.property(
        anySeparator.chain((separator) => fc.tuple(fc.constant(separator), fileNames(separator))),
        fc.array(fc.constantFrom(...(fields as ['outer_id']), 'ignore' as const), {
          maxLength: 6,
        }),
        ([separator, names], columns) => {
          const mapping = mappingFromBuilder(separator, columns);
          const problem = mappingProblem(mapping);
          // An ignored column is a part no column_N names.
          const doc = {
            mapping: [
              { separator },
              ...columns.flatMap((c, i) => (c === 'ignore' ? [] : [{ [`column_${i}`]: c }])),
            ],
          };
          expectAgreement(
            problem === null ? mapping : new UsageError(problem),
            service(stringify(doc)),
            names,
          );
        },
      ),
      { seed, numRuns: 500 },
    );
  });
});

describe('the mapping checker agrees with the service over HTTP', () => {
  let sandbox: TestSandbox;
  let s3: S3Client;
  let catalog: string;
  let run = 0;

  beforeAll(async () => {
    sandbox = await startTestSandbox();
    s3 = sandbox.s3();
    catalog = sandbox.info.catalogs[0]!.id;
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  it('on POST /ingestion/audio_mapping with mapping_content', async () => {
    // Names a bucket key can hold (no control characters), at least one not hidden.
    // eslint-disable-next-line no-control-regex -- keys never hold control characters
    const keyable = (n: string) => !/[\u0000-\u001f\u007f-\u009f]/.test(n);
    const cases = yamlDocument.chain(({ text, separator }) =>
      fileNames(separator).map((names) => {
        const keys = [...new Set(names.filter(keyable).map((n) => n.normalize('NFC')))];
        return { content: text, keys: [...keys, 'fallback_name.wav'] };
      }),
    );
    await fc.assert(
      fc.asyncProperty(cases, async ({ content, keys: all }) => {
        const folder = `agree-${run++}`;
        for (const name of all) {
          await s3.send(
            new PutObjectCommand({
              Bucket: sandbox.info.bucket.bucket_name,
              Key: `delivery/audio/${folder}/${name}`,
              Body: 'RIFF....WAVE',
            }),
          );
        }
        const answer = await sandbox.api(
          `/ingestion/audio_mapping?catalog_id=${catalog}&delivery_dir_path=${folder}&mapping_content=${encodeURIComponent(content)}`,
          { method: 'POST' },
        );
        const ours = client(() => parseMappingYaml(content));
        if (ours instanceof UsageError) {
          expect([answer.status, ours.message]).toEqual([400, ours.message]);
          expect(['invalid_mapping', 'missing_parameter']).toContain(answer.body.error.code);
          return;
        }
        const refused = all.filter((n) => !n.startsWith('.') && !applyFileNameMapping(n, ours).ok);
        if (refused.length > 0) {
          expect(answer.status).toBe(400);
          expect(answer.body.error.code).toBe('mapping_mismatch');
          expect(answer.body.error.details.files).toHaveLength(refused.length);
          return;
        }
        expect([answer.status, answer.body.error]).toEqual([200, undefined]);
        const outerIds = all
          .filter((n) => !n.startsWith('.'))
          .map(
            (n) =>
              (applyFileNameMapping(n, ours) as { values: { outer_id: string } }).values.outer_id,
          );
        expect(answer.body.data.count).toBe(new Set(outerIds).size);
      }),
      { seed, numRuns: 30 },
    );
  });
});
