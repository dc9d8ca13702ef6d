/** A tiny element builder: `h('button', { class: 'primary', onclick }, 'Save')`. No framework. */
/** An event handler; an async one's failure is reported like a thrown error's (reportError), never left unhandled. */
type Handler = (e: Event) => void | Promise<void>;
type Attrs = Record<string, string | number | boolean | null | undefined | Handler>;
export type Child = Node | string | number | null | undefined | false | Child[];

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v == null || v === false) continue;
    if (typeof v === 'function') el.addEventListener(k.replace(/^on/, ''), (e) => void v(e)?.catch(reportError));
    else if (k in el && typeof (el as unknown as Record<string, unknown>)[k] !== 'function' && k !== 'list')
      (el as unknown as Record<string, unknown>)[k] = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

export function append(el: Node, children: Child[]): void {
  for (const c of children) {
    if (c == null || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

/** Replace everything inside `el`. */
export function mount(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

/**
 * Replace everything inside `el` with the answer to a tap, and bring it on screen: below a long
 * form or a column of candidates it landed out of sight, on a phone and on a desktop alike.
 */
export function answer(el: Element, ...children: Child[]): void {
  mount(el, ...children);
  el.scrollIntoView?.({ block: 'nearest' });
}

/** A labelled form field. */
export function field(label: string, input: HTMLElement): HTMLLabelElement {
  return h('label', { class: 'field' }, h('span', {}, label), input);
}

/** A notice line: `info`, `ok`, `warn` or `error`. */
export function notice(kind: 'info' | 'ok' | 'warn' | 'error', text: string, ...more: Child[]): HTMLElement {
  return h('p', { class: `notice ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text, ...more);
}

/** The URL of a stored photo by CID. */
export const blobUrl = (cid: string) => `/api/blobs/${encodeURIComponent(cid)}`;
