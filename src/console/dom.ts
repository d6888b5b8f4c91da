// A few DOM helpers: elements built with text content (never innerHTML), so record fields and
// terminal lines cannot inject markup.
type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | undefined | null | ((ev: Event) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (typeof v === 'function') el.addEventListener(k.replace(/^on/, ''), v as EventListener);
    else if (k === 'class') el.className = String(v);
    else if (v === true) el.setAttribute(k, '');
    else el.setAttribute(k, String(v));
  }
  append(el, ...children);
  return el;
}

export function append(el: Element, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

export function clear(el: Element): void {
  while (el.firstChild) el.firstChild.remove();
}

let fieldIds = 0;

/** A labelled input: the label names it, a hint describes it (aria-describedby). */
export function field(label: string, input: HTMLInputElement | HTMLSelectElement, hint?: string, cls = ''): HTMLElement {
  if (!input.id) input.id = `f${++fieldIds}-${input.name}`;
  const hintEl = hint ? h('span', { class: 'field-hint', id: `${input.id}-hint` }, hint) : null;
  if (hintEl) input.setAttribute('aria-describedby', hintEl.id);
  return h('div', { class: `field ${cls}`.trim() }, h('label', { class: 'field-label', for: input.id }, label), input, hintEl);
}

export function input(name: string, attrs: Attrs = {}): HTMLInputElement {
  return h('input', { name, type: 'text', autocomplete: 'off', spellcheck: 'false', ...attrs });
}

export function select(name: string, options: readonly (readonly [string, string])[], value = ''): HTMLSelectElement {
  const s = h('select', { name });
  for (const [v, text] of options) s.append(h('option', { value: v, selected: v === value }, text));
  return s;
}

/** Seconds as m:ss.s or h:mm:ss. */
export function clock(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) seconds = 0;
  const h_ = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const ss = s.toFixed(1).padStart(4, '0');
  return h_ > 0 ? `${h_}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

export function errorBox(message: string): HTMLElement {
  return h('div', { class: 'error', role: 'alert' }, message);
}
