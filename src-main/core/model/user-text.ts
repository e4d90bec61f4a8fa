/**
 * How messages show what the user gave (a tag value, a file name, a cell): the one place user
 * text is quoted, so that a control character read from a tag (a NUL that ends or separates ID3
 * values) never reaches a message, a log line or a terminal as itself.
 */

// C0, DEL and C1 controls: invisible, or worse (a NUL cuts C strings, ESC drives terminals).
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** Text with its control characters shown as escapes (`\u0000`), safe to print on one line. */
export function showControls(text: string): string {
  return text.replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** User text as a message quotes it: between single quotes, control characters visible. */
export function quoted(text: string): string {
  return `'${showControls(text)}'`;
}
