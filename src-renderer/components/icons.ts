/**
 * The app's icons: each one's SVG path on a 16×16 grid, drawn in the text's colour, and the
 * attributes of its `<svg>`. Inline SVG renders the same everywhere: emoji and symbol glyphs
 * showed as empty boxes where no font had them. `Icon.svelte` draws them in markup; the grid's
 * cells, painted without a component each, draw them with `iconElement`.
 */
const paths = {
  logo: 'M8 1.5 14.5 8 8 14.5 1.5 8Z',
  folder: 'M1.5 3.5h4.5l1.5 1.5h7v8.5h-13Z',
  check: 'M3 8.5l3.2 3.2L13 4.5',
  cross: 'M4 4l8 8M12 4l-8 8',
  warning: 'M8 2 15 14H1ZM8 6.5v3.5M8 12v.01',
  'arrow-up': 'M8 13.5v-11M3.5 7 8 2.5 12.5 7',
  'arrow-down': 'M8 2.5v11M3.5 9 8 13.5 12.5 9',
  'sort-up': 'M4 10.5 8 6.5l4 4',
  'sort-down': 'M4 6.5l4 4 4-4',
  'panel-right': 'M1.5 2.5h13v11h-13ZM10 2.5v11',
} as const;

/** The icons there are. */
export type IconName = keyof typeof paths;

/** Icons drawn as a filled shape rather than a line. */
const filled: readonly IconName[] = ['logo'];

/** An icon's path. */
export function iconPath(name: IconName): string {
  return paths[name];
}

/**
 * The attributes of an icon's `<svg>`. It is hidden from assistive technology: where the icon
 * alone carries meaning, a label beside it says the same in words.
 */
export function iconAttributes(name: IconName, size = 16): Record<string, string> {
  return {
    class: 'icon',
    width: String(size),
    height: String(size),
    viewBox: '0 0 16 16',
    fill: filled.includes(name) ? 'currentColor' : 'none',
    stroke: 'currentColor',
    'stroke-width': '1.6',
    'stroke-linecap': 'round',
    'stroke-linejoin': 'round',
    'aria-hidden': 'true',
    focusable: 'false',
  };
}

const SVG = 'http://www.w3.org/2000/svg';

/** An icon as an element, for DOM built without a component. */
export function iconElement(name: IconName): SVGSVGElement {
  const svg = document.createElementNS(SVG, 'svg');
  for (const [key, value] of Object.entries(iconAttributes(name))) svg.setAttribute(key, value);
  const path = document.createElementNS(SVG, 'path');
  path.setAttribute('d', iconPath(name));
  svg.append(path);
  return svg;
}
