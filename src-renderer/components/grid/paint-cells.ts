/**
 * Paints a grid line's cells (see `cells.ts`) into its row element with DOM calls: text and
 * attributes, never markup, so no tag text is parsed as HTML. A repaint changes only what
 * differs from the last paint of the same element, so a row whose selection changes touches
 * one class, not its contents.
 */
import { iconElement } from '../icons.js';
import type { CellContent, CellView } from './cells.js';

/** What each painted cell element shows now. */
const painted = new WeakMap<Element, CellView>();

/** Paints a row's cells as its children: one element per cell, reused from the last paint. */
export function paintCells(row: Element, views: readonly CellView[]): void {
  while (row.children.length > views.length) row.lastElementChild!.remove();
  while (row.children.length < views.length) row.append(document.createElement('div'));
  views.forEach((view, c) => paintCell(row.children[c]!, view));
}

/**
 * Paints one cell element: its attributes and, unless it is being edited (its editor is the
 * component's), its content.
 */
export function paintCell(cell: Element, view: CellView): void {
  const last = painted.get(cell);
  painted.set(cell, view);
  if (!last) {
    cell.setAttribute('role', 'gridcell');
    cell.setAttribute('tabindex', '-1');
  }
  if (last?.id !== view.id) cell.id = view.id;
  if (last?.className !== view.className) cell.className = view.className;
  if (last?.column !== view.column) cell.setAttribute('data-column', view.column);
  if (last?.at !== view.at) cell.setAttribute('data-cell', view.at);
  if (last?.colIndex !== view.colIndex) cell.setAttribute('aria-colindex', String(view.colIndex));
  if (last?.selected !== view.selected) cell.setAttribute('aria-selected', String(view.selected));
  if (last?.title !== view.title) toggle(cell, 'title', view.title);
  if (last?.invalid !== view.invalid) toggle(cell, 'aria-invalid', view.invalid ? 'true' : '');
  if (last?.readonly !== view.readonly) toggle(cell, 'aria-readonly', view.readonly ? 'true' : '');
  if (view.editor) return;
  if (last && !last.editor && sameContent(last.content, view.content)) return;
  paintContent(cell, view.content);
}

/** Sets an attribute, or removes it when the value is ''. */
function toggle(element: Element, name: string, value: string): void {
  if (value) element.setAttribute(name, value);
  else element.removeAttribute(name);
}

function sameContent(a: CellContent, b: CellContent): boolean {
  switch (a.kind) {
    case 'text':
      return b.kind === 'text' && a.text === b.text;
    case 'file':
      return b.kind === 'file' && a.path === b.path;
    case 'status':
      return b.kind === 'status' && a.icon === b.icon && a.count === b.count && a.label === b.label;
    case 'skeleton':
      return b.kind === 'skeleton';
    case 'album-label':
      return b.kind === 'album-label' && a.text === b.text && a.width === b.width;
    case 'flag':
      return b.kind === 'flag' && a.label === b.label;
  }
}

function paintContent(cell: Element, content: CellContent): void {
  switch (content.kind) {
    case 'text':
      cell.textContent = content.text;
      return;
    case 'file':
      cell.replaceChildren(fileName(content.path));
      return;
    case 'status': {
      const mark = span('status-mark');
      mark.setAttribute('role', 'img');
      mark.setAttribute('aria-label', content.label);
      if (content.icon) mark.append(iconElement(content.icon));
      mark.append(content.count);
      cell.replaceChildren(mark);
      return;
    }
    case 'skeleton': {
      const skeleton = span('skeleton');
      skeleton.setAttribute('aria-hidden', 'true');
      cell.replaceChildren(skeleton);
      return;
    }
    case 'album-label': {
      const label = span('album-label', content.text);
      label.style.width = `calc(${content.width}px - 1rem)`;
      cell.replaceChildren(label);
      return;
    }
    case 'flag':
      cell.replaceChildren(iconElement('warning'), span('visually-hidden', content.label));
      return;
  }
}

/**
 * A file's path: its name first and in full, its folder after it, dimmed, cut first when the
 * column is narrow; the whole path in the tooltip. The text stays the path in order (folder,
 * then name), so copying, finding and screen readers read what the track is.
 */
function fileName(path: string): HTMLElement {
  const cut = path.lastIndexOf('/') + 1;
  const whole = span('file-name');
  whole.title = path;
  if (cut > 0) {
    whole.append(span('folder', path.slice(0, cut - 1), span('visually-hidden', '/')));
  }
  whole.append(span('name', path.slice(cut)));
  return whole;
}

function span(className: string, ...children: Array<string | Node>): HTMLSpanElement {
  const element = document.createElement('span');
  element.className = className;
  element.append(...children);
  return element;
}
