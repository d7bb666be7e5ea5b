/**
 * The page's wiring (the bundle's entry). The session list and the stats refresh on a timer; the
 * selected session (`#/session/{id}`) follows its own result stream. The token form stores the
 * token for this tab only (sessionStorage).
 */
import { ApiError, getJson, getToken, setToken } from './api.ts'
import { badge, h, replace } from './dom.ts'
import { loadRuns } from './runs.ts'
import { openSession, type SessionState } from './session.ts'
import { loadStats, type StatsFilters } from './stats.ts'
import type { SessionList, SessionSummary } from './wire.ts'

/** How often the session list and the stats are fetched again (ms). */
const SESSIONS_REFRESH_MS = 3000
const STATS_REFRESH_MS = 10000
const SESSIONS_SHOWN = 100
/** After a live result, the list and stats refresh this much later (one refresh per burst). */
const FOLLOW_UP_MS = 500

/** An element the page shell (page.ts) is known to have. */
function $(id: string): HTMLElement {
  const el = document.getElementById(id)
  if (!el) throw new Error(`the page has no #${id}`)
  return el
}
const input = (id: string) => $(id) as HTMLInputElement

const els = { title: $('session-title'), status: $('session-status'), scores: $('scores'), conversation: $('conversation') }
let closeSession = () => {}
let selected = ''
/**
 * Sessions the server no longer holds, learnt when opened (410 with its reason, 404 once deleted,
 * or the stream's closing frame), for a list that cannot say so itself (a Worker's): the list
 * comes from the results index, which keeps a session's results after it goes. Node and Deno mark
 * gone sessions in the list themselves (`gone`).
 */
const goneSessions = new Map<string, string>()

function filters(): StatsFilters {
  return { app: input('filter-app').value.trim(), windowMs: Number(($('filter-window') as HTMLSelectElement).value) }
}

function notice(error?: unknown): void {
  const el = $('notice')
  if (!error) {
    el.hidden = true
    return
  }
  el.hidden = false
  el.textContent = error instanceof ApiError && error.status === 401
    ? `This server needs a bearer token: enter it above. (${error.message})`
    : String((error as Error).message || error)
}

function sessionItem(s: SessionSummary): HTMLElement {
  // ADK's efficiency metrics (INFORMATIONAL values) have no pass/fail: left out of the chips.
  const criteria = Object.entries(s.criteria)
    .filter(([, c]) => c.passed + c.failed + c.not_evaluated > 0)
    .map(([name, c]) =>
      badge(c.failed > 0 ? 'FAILED' : c.passed > 0 ? 'PASSED' : 'NOT_EVALUATED', name + (c.failed > 0 ? ' ✗' : c.passed > 0 ? ' ✓' : ' –'))
    )
  const gone = goneSessions.get(s.session_id) ?? s.gone?.detail
  const status = gone !== undefined ? 'GONE' : s.status
  return h(
    'li',
    { class: s.session_id === selected ? 'selected' : undefined, 'data-session-id': s.session_id, 'data-status': status },
    h(
      'a',
      { href: `#/session/${encodeURIComponent(s.session_id)}`, title: gone },
      h(
        'div',
        null,
        badge(status),
        gone !== undefined && s.status !== 'OPEN' ? h('span', { class: 'muted' }, ` (was ${s.status.toLowerCase()})`) : null,
        ' ',
        h('span', { class: 'id' }, s.session_id),
      ),
      h(
        'div',
        { class: 'muted' },
        `${s.app ? `${s.app} · ` : ''}${s.invocations} invocation(s) · ${new Date(s.last_at).toLocaleTimeString()}`,
      ),
      h('div', { class: 'chips' }, criteria),
    ),
  )
}

async function refreshSessions(): Promise<void> {
  const f = filters()
  const list = await getJson<SessionList>('/v1/sessions', { app: f.app, limit: SESSIONS_SHOWN })
  replace(
    $('sessions'),
    list.sessions.length ? list.sessions.map(sessionItem) : h('li', { class: 'muted' }, 'no sessions with results yet'),
  )
  $('tenant').textContent = list.tenant ? `tenant: ${list.tenant} (from your token)` : ''
}

async function refreshRuns(): Promise<void> {
  await loadRuns($('runs'))
}

async function refreshStats(): Promise<void> {
  await loadStats($('stats'), filters())
}

async function refresh(what: () => Promise<void>): Promise<void> {
  try {
    await what()
    notice()
  } catch (error) {
    notice(error)
  }
}

/** A result in the open session: the list and the stats follow soon after (coalesced). */
let followUp: ReturnType<typeof setTimeout> | undefined
function onSessionChange(id: string, state: SessionState): void {
  if (state.gone !== undefined && !goneSessions.has(id)) {
    goneSessions.set(id, state.gone)
    void refresh(refreshSessions)
  }
  clearTimeout(followUp)
  followUp = setTimeout(() => {
    void refresh(refreshSessions)
    void refresh(refreshStats)
  }, FOLLOW_UP_MS)
}

function route(): void {
  const match = /^#\/session\/(.+)$/.exec(location.hash)
  const id = match?.[1] ? decodeURIComponent(match[1]) : ''
  if (id === selected) return
  closeSession()
  selected = id
  $('session-view').hidden = !id
  if (id) closeSession = openSession(id, els, (state) => onSessionChange(id, state))
  else closeSession = () => {}
  for (const li of document.querySelectorAll<HTMLElement>('#sessions li')) li.classList.toggle('selected', li.dataset.sessionId === id)
}

input('token').value = getToken()
$('token-form').addEventListener('submit', (e) => {
  e.preventDefault()
  setToken(input('token').value.trim())
  selected = ''
  route()
  void refresh(refreshSessions)
  void refresh(refreshRuns)
  void refresh(refreshStats)
})
$('token-clear').addEventListener('click', () => {
  input('token').value = ''
  setToken('')
  void refresh(refreshSessions)
})
$('filters').addEventListener('change', () => {
  void refresh(refreshSessions)
  void refresh(refreshStats)
})
$('filters').addEventListener('submit', (e) => e.preventDefault())
addEventListener('hashchange', route)
route()
void refresh(refreshSessions)
void refresh(refreshRuns)
void refresh(refreshStats)
setInterval(() => refresh(refreshSessions), SESSIONS_REFRESH_MS)
setInterval(() => refresh(refreshRuns), SESSIONS_REFRESH_MS)
setInterval(() => refresh(refreshStats), STATS_REFRESH_MS)
