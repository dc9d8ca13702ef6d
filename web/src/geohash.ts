import { h } from './dom.js';

const BASE32 = '0123456789bcdefghjkmnpqrstuvwxyz';

/** The cell of a geohash as [south, west, north, east] in degrees. */
export function cellOf(hash: string): [number, number, number, number] {
  const lat: [number, number] = [-90, 90];
  const lon: [number, number] = [-180, 180];
  let even = true;
  for (const ch of hash.toLowerCase()) {
    const v = BASE32.indexOf(ch);
    if (v < 0) break;
    for (let bit = 4; bit >= 0; bit--) {
      const range = even ? lon : lat;
      const mid = (range[0] + range[1]) / 2;
      if ((v >> bit) & 1) range[0] = mid;
      else range[1] = mid;
      even = !even;
    }
  }
  return [lat[0], lon[0], lat[1], lon[1]];
}

const SVG = 'http://www.w3.org/2000/svg';
function svg(tag: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text) el.textContent = text;
  return el;
}

/**
 * A coarse map drawn from the geohash alone: the parent cell split into its 32 children, the
 * tree's cell filled. No map tiles (nothing is fetched from elsewhere), no exact position.
 */
export function cellMap(hash: string): HTMLElement {
  const parent = hash.slice(0, -1);
  const [ps, pw, pn, pe] = cellOf(parent);
  const W = 320;
  const H = Math.round((W * (pn - ps)) / ((pe - pw) * Math.cos((((ps + pn) / 2) * Math.PI) / 180)));
  const x = (lon: number) => ((lon - pw) / (pe - pw)) * W;
  const y = (lat: number) => ((pn - lat) / (pn - ps)) * H;
  const root = svg('svg', { viewBox: `0 0 ${W} ${H}`, class: 'cellmap', role: 'img', 'aria-label': hash });
  for (const ch of BASE32) {
    const code = parent + ch;
    const [s, w, n, e] = cellOf(code);
    const mine = code === hash.toLowerCase();
    root.appendChild(svg('rect', { x: x(w), y: y(n), width: x(e) - x(w), height: y(s) - y(n), class: mine ? 'mine' : 'other' }));
  }
  const [s, w, n, e] = cellOf(hash);
  const centre = `${((s + n) / 2).toFixed(3)}°, ${((w + e) / 2).toFixed(3)}°`;
  return h('figure', { class: 'map' }, root as unknown as HTMLElement, h('figcaption', {}, `${hash} · ${centre}`));
}
