/**
 * main.js: the page's wiring. The session list and the stats refresh on a timer; the selected
 * session (`#/session/{id}`) follows its own result stream. The token form stores the token for
 * this tab only (sessionStorage).
 */
export const MAIN_JS = String.raw`
import { ApiError, getJson, getToken, setToken } from './api.js'
import { badge, h, replace } from './dom.js'
import { openSession } from './session.js'
import { loadStats } from './stats.js'

/** How often the session list and the stats are fetched again (ms). */
const SESSIONS_REFRESH_MS = 3000
const STATS_REFRESH_MS = 10000
const SESSIONS_SHOWN = 100
/** After a live result, the list and stats refresh this much later (one refresh per burst). */
const FOLLOW_UP_MS = 500

const $ = (id) => document.getElementById(id)
const els = { title: $('session-title'), status: $('session-status'), scores: $('scores'), conversation: $('conversation') }
let closeSession = () => {}
let selected = ''

function filters() {
  return { app: $('filter-app').value.trim(), windowMs: Number($('filter-window').value) }
}

function notice(error) {
  const el = $('notice')
  if (!error) { el.hidden = true; return }
  el.hidden = false
  el.textContent = error instanceof ApiError && error.status === 401
    ? 'This server needs a bearer token: enter it above. (' + error.message + ')'
    : String(error.message || error)
}

function sessionItem(s) {
  // ADK's efficiency metrics (INFORMATIONAL values) have no pass/fail: left out of the chips.
  const criteria = Object.entries(s.criteria).filter(([, c]) => c.passed + c.failed + c.not_evaluated > 0).map(([name, c]) =>
    badge(c.failed > 0 ? 'FAILED' : c.passed > 0 ? 'PASSED' : 'NOT_EVALUATED', name + (c.failed > 0 ? ' ✗' : c.passed > 0 ? ' ✓' : ' –')))
  return h('li', { class: s.session_id === selected ? 'selected' : undefined, 'data-session-id': s.session_id, 'data-status': s.status },
    h('a', { href: '#/session/' + encodeURIComponent(s.session_id) },
      h('div', {}, badge(s.status), ' ', h('span', { class: 'id' }, s.session_id)),
      h('div', { class: 'muted' }, (s.app ? s.app + ' · ' : '') + s.invocations + ' invocation(s) · ' + new Date(s.last_at).toLocaleTimeString()),
      h('div', { class: 'chips' }, criteria)))
}

async function refreshSessions() {
  const f = filters()
  const list = await getJson('/v1/sessions', { app: f.app, limit: SESSIONS_SHOWN })
  replace($('sessions'), list.sessions.length ? list.sessions.map(sessionItem) : h('li', { class: 'muted' }, 'no sessions with results yet'))
  $('tenant').textContent = list.tenant ? 'tenant: ' + list.tenant + ' (from your token)' : ''
}

async function refreshStats() {
  await loadStats($('stats'), filters())
}

async function refresh(what) {
  try { await what(); notice() } catch (error) { notice(error) }
}

/** A result in the open session: the list and the stats follow soon after (coalesced). */
let followUp
function onSessionChange() {
  clearTimeout(followUp)
  followUp = setTimeout(() => { refresh(refreshSessions); refresh(refreshStats) }, FOLLOW_UP_MS)
}

function route() {
  const match = /^#\/session\/(.+)$/.exec(location.hash)
  const id = match ? decodeURIComponent(match[1]) : ''
  if (id === selected) return
  closeSession()
  selected = id
  $('session-view').hidden = !id
  if (id) closeSession = openSession(id, els, onSessionChange)
  else closeSession = () => {}
  for (const li of document.querySelectorAll('#sessions li')) li.classList.toggle('selected', li.dataset.sessionId === id)
}

$('token').value = getToken()
$('token-form').addEventListener('submit', (e) => {
  e.preventDefault()
  setToken($('token').value.trim())
  selected = ''
  route()
  refresh(refreshSessions)
  refresh(refreshStats)
})
$('token-clear').addEventListener('click', () => { $('token').value = ''; setToken(''); refresh(refreshSessions) })
$('filters').addEventListener('change', () => { refresh(refreshSessions); refresh(refreshStats) })
$('filters').addEventListener('submit', (e) => e.preventDefault())
addEventListener('hashchange', route)
route()
refresh(refreshSessions)
refresh(refreshStats)
setInterval(() => refresh(refreshSessions), SESSIONS_REFRESH_MS)
setInterval(() => refresh(refreshStats), STATS_REFRESH_MS)
`
