/**
 * Whether a proxied /run_sse carries evalstream's result frames inline. By default it does not:
 * the stock ADK web UI (and any client that reads every `data:` line whatever the event name)
 * would show each result as an empty row, so the client gets exactly the agent's frames and the
 * results stay on `/v1/sessions/{id}/results`. A client that wants them in the stream asks with
 * the request header `X-Evalstream-Results: inline` or the query parameter
 * `?evalstream_results=inline`; the parameter is never forwarded to the agent (the header is not
 * either: no `x-evalstream-*` header is).
 */

/** The request header that picks the mode. */
export const RESULTS_HEADER = 'x-evalstream-results'

/** The same header as documents and error messages spell it. */
export const RESULTS_HEADER_NAME = 'X-Evalstream-Results'

/** The query parameter that picks the mode (for clients that cannot set headers, e.g. EventSource). */
export const RESULTS_PARAM = 'evalstream_results'

/** `none` (default): the agent's frames only; `inline`: result frames interleaved after the frames that caused them. */
export const RESULTS_MODES = ['none', 'inline'] as const

export type ResultsMode = (typeof RESULTS_MODES)[number]

export type ResultsModeChoice = { ok: true; mode: ResultsMode } | { ok: false; detail: string }

const ACCEPTED = RESULTS_MODES.map((mode) => `'${mode}'`).join(' or ')

/**
 * The mode a request asks for: from the header and every instance of the query parameter, which
 * must each be an accepted value (any case, spaces around ignored) and, when several are given,
 * agree.
 * @example resultsModeOf(undefined, '?evalstream_results=inline') // { ok: true, mode: 'inline' }
 * @example resultsModeOf('yes', '').ok // false
 */
export function resultsModeOf(header: string | undefined, search: string): ResultsModeChoice {
  const asked: Array<{ where: string; value: string }> = []
  if (header !== undefined) asked.push({ where: `header ${RESULTS_HEADER_NAME}`, value: header })
  for (const value of paramValues(search)) asked.push({ where: `query parameter ${RESULTS_PARAM}`, value })
  let first: { where: string; mode: ResultsMode } | undefined
  for (const { where, value } of asked) {
    const mode = value.trim().toLowerCase()
    if (!isMode(mode)) return { ok: false, detail: `${where} is '${clip(value)}'; accepted values are ${ACCEPTED}` }
    if (first !== undefined && first.mode !== mode) {
      return { ok: false, detail: `${first.where} is '${first.mode}' but ${where} is '${mode}'; ask for one mode` }
    }
    first ??= { where, mode }
  }
  return { ok: true, mode: first?.mode ?? 'none' }
}

/**
 * The query string without the opt-in parameter, every other parameter exactly as written.
 * @example withoutResultsParam('?a=1&evalstream_results=inline&b=%20') // '?a=1&b=%20'
 * @example withoutResultsParam('?evalstream_results=inline') // ''
 */
export function withoutResultsParam(search: string): string {
  if (!search.includes(RESULTS_PARAM) && !search.includes('%')) return search
  const kept = splitSearch(search).filter((pair) => nameOf(pair) !== RESULTS_PARAM)
  return kept.length === 0 ? '' : `?${kept.join('&')}`
}

function isMode(value: string): value is ResultsMode {
  return (RESULTS_MODES as readonly string[]).includes(value)
}

function splitSearch(search: string): string[] {
  return search.replace(/^\?/, '').split('&').filter((pair) => pair !== '')
}

/** A pair's name decoded exactly as URLSearchParams decodes it (`+` a space, `%5F` an underscore). */
function nameOf(pair: string): string {
  // The leading `&` keeps URLSearchParams from stripping a `?` that is part of the name.
  return new URLSearchParams(`&${pair.split('=', 1)[0]!}`).keys().next().value ?? ''
}

function paramValues(search: string): string[] {
  if (!search.includes(RESULTS_PARAM) && !search.includes('%')) return []
  return new URLSearchParams(search).getAll(RESULTS_PARAM)
}

/** A value quoted back in an error, cut to a readable length. */
function clip(value: string): string {
  return value.length > 40 ? `${value.slice(0, 40)}…` : value
}
