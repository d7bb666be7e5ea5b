/**
 * The dashboard's only way to put text into the page. `h` sets text through textContent and
 * attributes through setAttribute on a fixed allow-list, so agent-written text (event content,
 * rationales, session ids) can never become markup or script.
 */

const ATTRIBUTES = new Set([
  'class',
  'href',
  'title',
  'data-status',
  'data-session-id',
  'data-criterion',
  'data-author',
  'data-bad',
  'data-empty',
  'data-mark',
  'data-allowed',
  'data-divergence',
  'data-match-type',
  'data-vote',
  'data-chosen',
  'data-verdict',
  'data-run-id',
  'data-eval-id',
  'data-invocation',
  'hidden',
])

/** A child of `h`: nodes as they are, text as text nodes, nothing for the empty values; arrays flatten. */
export type Child = Node | string | number | false | null | undefined | readonly Child[]

export type Attributes = Record<string, string | number | boolean | null | undefined>

function flatten(children: readonly Child[], out: Array<Node | string | number>): void {
  for (const child of children) {
    if (Array.isArray(child)) flatten(child, out)
    else if (child !== undefined && child !== null && child !== false) out.push(child as Node | string | number)
  }
}

/** h('span', { class: 'badge' }, 'text', childNode, ...): text children become text nodes. */
export function h(tag: string, attributes: Attributes | null, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === undefined || value === null || value === false) continue
    if (!ATTRIBUTES.has(name)) throw new Error(`attribute not allowed: ${name}`)
    if (name === 'href' && !String(value).startsWith('#')) throw new Error('only in-page links')
    el.setAttribute(name, String(value))
  }
  const flat: Array<Node | string | number> = []
  flatten(children, flat)
  for (const child of flat) el.append(child instanceof Node ? child : document.createTextNode(String(child)))
  return el
}

/** A status badge that says its status in words too. */
export function badge(status: string, label?: string): HTMLElement {
  return h('span', { class: 'badge', 'data-status': status }, label || status.toLowerCase().replace('_', ' '))
}

export function replace(el: Element, ...children: Child[]): void {
  const flat: Array<Node | string | number> = []
  flatten(children, flat)
  el.replaceChildren(...flat.filter(Boolean).map((c) => (c instanceof Node ? c : String(c))))
}

export function formatScore(score: unknown): string {
  return typeof score === 'number' ? (Math.round(score * 1000) / 1000).toString() : '–'
}
