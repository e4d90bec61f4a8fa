/** Most tracks one JSON ingestion request may carry (section 8). */
export const MAX_TRACKS_PER_REQUEST = 25;

/** One problem in a JSON ingestion body, located by a path such as `[2].albums[0].upc`. */
export interface FieldProblem {
  field: string;
  message: string;
}

type Check = (value: unknown, at: string, problems: FieldProblem[]) => void;

const isString: Check = (value, at, problems) => {
  if (typeof value !== 'string') problems.push({ field: at, message: 'must be a string' });
};

function dateCheck(kind: 'integer' | 'string'): Check {
  return (value, at, problems) => {
    const text =
      kind === 'integer'
        ? Number.isInteger(value)
          ? String(value)
          : undefined
        : typeof value === 'string'
          ? value
          : undefined;
    if (text === undefined) {
      problems.push({
        field: at,
        message: `must be ${kind === 'integer' ? 'an integer' : 'a string'} YYYYMMDD`,
      });
    } else if (!isCalendarDate(text)) {
      problems.push({
        field: at,
        message: `must be a date in the form YYYYMMDD, not ${JSON.stringify(value)}`,
      });
    }
  };
}

/** True for an 8-digit YYYYMMDD text naming a real calendar day. */
export function isCalendarDate(text: string): boolean {
  const match = /^(\d{4})(\d{2})(\d{2})$/.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return (
    date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
  );
}

function objectOf(fields: Record<string, Check>, required: string[] = []): Check {
  return (value, at, problems) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      problems.push({ field: at, message: 'must be an object' });
      return;
    }
    const record = value as Record<string, unknown>;
    for (const name of required) {
      if (record[name] === undefined)
        problems.push({ field: join(at, name), message: 'is required' });
    }
    for (const [name, check] of Object.entries(fields)) {
      if (record[name] !== undefined) check(record[name], join(at, name), problems);
    }
  };
}

function arrayOf(item: Check): Check {
  return (value, at, problems) => {
    if (!Array.isArray(value)) {
      problems.push({ field: at, message: 'must be an array' });
      return;
    }
    value.forEach((element, index) => item(element, `${at}[${index}]`, problems));
  };
}

function join(at: string, name: string): string {
  return at === '' ? name : `${at}.${name}`;
}

const reference = objectOf({ id: isString, source: isString }, ['id', 'source']);

const album = objectOf({
  upc: isString,
  title: isString,
  release_date: dateCheck('string'),
  type: isString,
  references: arrayOf(reference),
  track_position: isString,
  disk_number: isString,
});

/** The track object of section 2.4; unknown fields are kept but not checked. */
const track = objectOf(
  {
    outer_id: isString,
    primary_media: isString,
    references: arrayOf(reference),
    title: isString,
    lyrics: isString,
    isrc: isString,
    release_date: dateCheck('integer'),
    albums: arrayOf(album),
    artists: arrayOf(
      objectOf({ id: isString, name: isString, role: isString }, ['id', 'name', 'role']),
    ),
    customer_tags: arrayOf(objectOf({ tag: isString, category: isString }, ['tag', 'category'])),
  },
  ['outer_id', 'primary_media'],
);

/** Checks a JSON ingestion body: an array of 1 to 25 tracks, each valid per section 2.4. */
export function validateTracks(body: unknown): FieldProblem[] {
  if (!Array.isArray(body)) return [{ field: '', message: 'the body must be an array of tracks' }];
  if (body.length === 0) return [{ field: '', message: 'the body must hold at least one track' }];
  if (body.length > MAX_TRACKS_PER_REQUEST) {
    return [
      {
        field: '',
        message: `at most ${MAX_TRACKS_PER_REQUEST} tracks per request, got ${body.length}`,
      },
    ];
  }
  const problems: FieldProblem[] = [];
  body.forEach((element, index) => track(element, `[${index}]`, problems));
  body.forEach((element, index) => {
    const outerId = (element as { outer_id?: unknown } | null)?.outer_id;
    if (typeof outerId === 'string' && outerId.trim() === '') {
      problems.push({ field: `[${index}].outer_id`, message: 'must not be empty' });
    }
    const media = (element as { primary_media?: unknown } | null)?.primary_media;
    if (typeof media === 'string' && media.trim() === '') {
      problems.push({ field: `[${index}].primary_media`, message: 'must not be empty' });
    }
  });
  return problems;
}
