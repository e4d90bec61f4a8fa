import { XMLParser, XMLValidator } from 'fast-xml-parser';

import { S3GateError, xmlEscape } from './s3-errors.js';

/** One object a DeleteObjects request names. */
export interface DeleteTarget {
  key: string;
  versionId?: string;
}

/** A DeleteObjects request body, read once: these keys, and nothing else, are checked and deleted. */
export interface DeleteRequest {
  quiet: boolean;
  objects: DeleteTarget[];
}

/** What became of one key: deleted, or refused with an S3 error code. */
export type DeleteOutcome =
  { key: string; deleted: true } | { key: string; deleted: false; code: string; message: string };

/** S3 takes at most this many keys in one DeleteObjects request. */
export const MAX_DELETE_KEYS = 1000;

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  ignoreDeclaration: true,
  ignorePiTags: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: true,
  // Character references (`&#x49;`) are XML; the parser only decodes them with this on.
  htmlEntities: true,
  removeNSPrefix: false,
  commentPropName: '#comment',
});

type XmlNode = Record<string, unknown>;

function malformed(): S3GateError {
  return new S3GateError(
    'MalformedXML',
    'The XML you provided was not well-formed or did not validate against our published schema.',
  );
}

/** An element's name, or undefined for text and comments. */
function elementName(node: XmlNode): string | undefined {
  return Object.keys(node).find((name) => name !== ':@' && name !== '#text' && name !== '#comment');
}

function isBlank(node: XmlNode): boolean {
  return '#comment' in node || ('#text' in node && /^[ \t\r\n]*$/.test(String(node['#text'])));
}

/** The child elements of an element, refusing any text between them. */
function children(node: XmlNode, name: string): { name: string; node: XmlNode }[] {
  const list = node[name];
  if (!Array.isArray(list)) throw malformed();
  return (list as XmlNode[])
    .filter((child) => !isBlank(child))
    .map((child) => {
      const childName = elementName(child);
      if (childName === undefined) throw malformed();
      return { name: childName, node: child };
    });
}

/** An element's text: its text and CDATA joined, comments skipped, no element inside. */
function textOf(node: XmlNode, name: string): string {
  const list = node[name];
  if (!Array.isArray(list)) throw malformed();
  let text = '';
  for (const child of list as XmlNode[]) {
    if ('#comment' in child) continue;
    if (!('#text' in child) || elementName(child) !== undefined) throw malformed();
    text += String(child['#text']);
  }
  return text;
}

/**
 * Reads a DeleteObjects body with a real XML parser and S3's schema (one `Delete` root, 1–1,000
 * `Object`s of one `Key` and at most one `VersionId`, an optional `Quiet`). Anything else is
 * MalformedXML, so no spelling of a key can mean one thing here and another to s3rver: the keys
 * returned are the ones checked and deleted.
 */
export function parseDeleteRequest(xml: string): DeleteRequest {
  // A document type could declare entities; S3's schema has none.
  if (/<!DOCTYPE/i.test(xml) || XMLValidator.validate(xml) !== true) throw malformed();
  let tree: XmlNode[];
  try {
    tree = parser.parse(xml) as XmlNode[];
  } catch {
    throw malformed();
  }
  const roots = tree.filter((node) => !isBlank(node));
  if (roots.length !== 1 || elementName(roots[0]!) !== 'Delete') throw malformed();
  let quiet: boolean | undefined;
  const objects: DeleteTarget[] = [];
  for (const child of children(roots[0]!, 'Delete')) {
    if (child.name === 'Quiet' && quiet === undefined) {
      const value = textOf(child.node, 'Quiet').trim();
      if (!['true', 'false', '1', '0'].includes(value)) throw malformed();
      quiet = value === 'true' || value === '1';
    } else if (child.name === 'Object') {
      let key: string | undefined;
      let versionId: string | undefined;
      for (const part of children(child.node, 'Object')) {
        if (part.name === 'Key' && key === undefined) key = textOf(part.node, 'Key');
        else if (part.name === 'VersionId' && versionId === undefined)
          versionId = textOf(part.node, 'VersionId');
        else throw malformed();
      }
      if (key === undefined) throw malformed();
      objects.push(versionId === undefined ? { key } : { key, versionId });
    } else {
      throw malformed();
    }
  }
  if (objects.length === 0 || objects.length > MAX_DELETE_KEYS) throw malformed();
  return { quiet: quiet ?? false, objects };
}

/** S3's DeleteResult: every refused key, and the deleted ones unless the request was quiet. */
export function deleteResultXml(outcomes: DeleteOutcome[], quiet: boolean): string {
  const entries = outcomes.map((outcome) => {
    const key = `<Key>${xmlEscape(outcome.key)}</Key>`;
    if (outcome.deleted) return quiet ? '' : `<Deleted>${key}</Deleted>`;
    return `<Error>${key}<Code>${outcome.code}</Code><Message>${xmlEscape(outcome.message)}</Message></Error>`;
  });
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<DeleteResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">${entries.join('')}</DeleteResult>`
  );
}
