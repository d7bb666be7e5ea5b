/**
 * dom.js: the dashboard's only way to put text into the page. `h` sets text through textContent
 * and attributes through setAttribute on a fixed allow-list, so agent-written text (event
 * content, rationales, session ids) can never become markup or script.
 */
export const DOM_JS = String.raw`
const ATTRIBUTES = new Set(['class', 'href', 'title', 'data-status', 'data-session-id', 'data-criterion', 'data-author', 'data-bad', 'data-invocation', 'hidden'])

/** h('span', { class: 'badge' }, 'text', childNode, ...): text children become text nodes. */
export function h(tag, attributes, ...children) {
  const el = document.createElement(tag)
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === undefined || value === null || value === false) continue
    if (!ATTRIBUTES.has(name)) throw new Error('attribute not allowed: ' + name)
    if (name === 'href' && !String(value).startsWith('#')) throw new Error('only in-page links')
    el.setAttribute(name, String(value))
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue
    el.append(child instanceof Node ? child : document.createTextNode(String(child)))
  }
  return el
}

/** A status badge that says its status in words too. */
export function badge(status, label) {
  return h('span', { class: 'badge', 'data-status': status }, label || status.toLowerCase().replace('_', ' '))
}

export function replace(el, ...children) {
  el.replaceChildren(...children.flat().filter(Boolean))
}

export function formatScore(score) {
  return typeof score === 'number' ? (Math.round(score * 1000) / 1000).toString() : '–'
}
`
