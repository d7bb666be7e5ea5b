/**
 * One session, its conversation beside its scores, kept live from the results stream. Every
 * criterion of an invocation shows PENDING from `invocation.started` until it is decided: a final
 * FAILED `criterion.progress` (a trajectory that diverged mid-invocation) turns it red at once;
 * judged criteria stay pending until their `criterion.result` brings the votes' rationale.
 */
import { ApiError, followResults, getJson } from './api.ts'
import { badge, formatScore, h, replace } from './dom.ts'
import { judgeElement, trajectoryElement } from './explain.ts'
import { type JudgeView, judgeView } from './judge-view.ts'
import { type TrajectoryTable, trajectoryTable } from './trajectory-rows.ts'
import type { Conversation, ResultMessage, SessionSnapshot } from './wire.ts'

const STATUS_NAMES: Record<number, string> = { 1: 'PASSED', 2: 'FAILED', 3: 'NOT_EVALUATED' }
/** Conversation refetches are coalesced to at most one per this many ms. */
const CONVERSATION_DEBOUNCE_MS = 250
/**
 * A finished session's stream is closed, so nothing would tell the page that the server let it go:
 * while it is shown, its snapshot is asked for again this often (one small request).
 */
const GONE_CHECK_MS = 3000

/** The elements one session is drawn into. */
export type SessionElements = { title: HTMLElement; status: HTMLElement; scores: HTMLElement; conversation: HTMLElement }

type CriterionView = {
  status: string
  score?: number | null
  threshold?: number | null
  provisional?: number | null
  early?: boolean
  reasons?: string[]
  /** A tool trajectory's expected-versus-actual calls (from the final result's details). */
  trajectory?: TrajectoryTable
  /** A judge's rationale and votes. */
  judge?: JudgeView
}

type InvocationView = { id: string; completed?: boolean; criteria: Map<string, CriterionView> }

export type SessionState = {
  metrics: string[]
  invocations: Map<number, InvocationView>
  status: string
  /** Why the server no longer holds the session (status GONE): its 410 detail, or deleted. */
  gone?: string
  stream: string
  errors: string[]
}

function criterionNote(c: CriterionView, inv: InvocationView): string {
  if (c.status === 'INFORMATIONAL') return `value ${formatScore(c.score)}`
  if (c.status === 'PENDING') return inv.completed ? 'judging: waiting for the votes' : 'decided when the invocation ends'
  return `score ${formatScore(c.score)}${c.threshold !== undefined ? ` / threshold ${c.threshold}` : ''}${
    c.early ? ' · decided mid-invocation' : ''
  }`
}

/** Shows one session and follows its results; returns the function that stops following. */
export function openSession(sessionId: string, els: SessionElements, onChange?: (state: SessionState) => void): () => void {
  const state: SessionState = { metrics: [], invocations: new Map(), status: 'OPEN', stream: 'connecting', errors: [] }
  let conversation: Conversation = { entries: [] }
  let timer: ReturnType<typeof setTimeout> | undefined
  const invocation = (index: number, id?: string): InvocationView => {
    let inv = state.invocations.get(index)
    if (!inv) {
      inv = { id: id || '', criteria: new Map() }
      for (const m of state.metrics) inv.criteria.set(m, { status: 'PENDING' })
      state.invocations.set(index, inv)
    }
    if (id) inv.id = id
    return inv
  }
  const renderConversation = () => {
    const entries = conversation.entries.filter((e, i, all) => !e.partial || i === all.length - 1)
    replace(
      els.conversation,
      entries.length
        ? entries.map((e) =>
          h(
            'div',
            { class: 'turn', 'data-author': e.author === 'user' ? 'user' : 'agent' },
            h('div', { class: 'author' }, e.author || 'unknown'),
            e.parts.map((p) =>
              p.kind === 'text'
                ? h('div', { class: 'text' }, p.text)
                : p.kind === 'call'
                ? h('div', { class: 'call' }, `→ ${p.name}(${p.args})`)
                : h('div', { class: 'response' }, `← ${p.name}`)
            ),
          )
        )
        : h('p', { class: 'muted' }, 'nothing said yet'),
      conversation.dropped ? h('p', { class: 'muted' }, `${conversation.dropped} earlier events not kept`) : null,
    )
  }
  const render = () => {
    replace(els.title, 'Session ', h('span', { class: 'id' }, sessionId))
    replace(
      els.status,
      badge(state.status),
      ' ',
      h('span', { class: 'muted' }, `stream: ${state.stream}`),
      state.gone ? h('div', { class: 'why gone' }, state.gone) : null,
      state.errors.map((e) => h('div', { class: 'why' }, e)),
    )
    const blocks = [...state.invocations.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([index, inv]) =>
        h(
          'div',
          { class: 'invocation', 'data-invocation': index },
          h('h4', null, `Invocation ${index + 1} `, h('span', { class: 'muted' }, inv.id)),
          [...inv.criteria.entries()].map(([name, c]) =>
            h(
              'div',
              { class: 'criterion', 'data-criterion': name, 'data-status': c.status },
              h('span', { class: 'name' }, name),
              badge(
                c.status,
                c.status === 'PENDING' && c.provisional !== undefined ? `pending (${formatScore(c.provisional)} so far)` : undefined,
              ),
              h('span', { class: 'muted' }, criterionNote(c, inv)),
              h('span', null),
              (c.reasons || []).map((r) => h('div', { class: 'why' }, r)),
              c.trajectory && c.status !== 'PASSED' ? trajectoryElement(c.trajectory) : null,
              c.judge ? judgeElement(c.judge) : null,
            )
          ),
        )
      )
    replace(els.scores, blocks.length ? blocks : h('p', { class: 'muted' }, 'no invocation yet'))
    renderConversation()
    onChange?.(state)
  }
  const refreshConversation = () => {
    clearTimeout(timer)
    timer = setTimeout(async () => {
      try {
        conversation = await getJson<Conversation>(`/v1/sessions/${encodeURIComponent(sessionId)}/conversation`)
        renderConversation()
      } catch {
        // The next result tries again.
      }
    }, CONVERSATION_DEBOUNCE_MS)
  }
  const onResult = ({ type, data }: ResultMessage) => {
    if (type === 'invocation.started') invocation(data.invocation_index, data.invocation_id)
    else if (type === 'criterion.progress') {
      const c: Partial<CriterionView> = invocation(data.invocation_index, data.invocation_id).criteria.get(data.metric_name) || {}
      if (c.status !== 'PENDING' && c.status !== undefined) return
      if (data.final && data.eval_status === 'FAILED') {
        Object.assign(c, { status: 'FAILED', score: data.score, threshold: data.threshold, early: true })
      } else c.provisional = data.score
      invocation(data.invocation_index).criteria.set(data.metric_name, Object.assign({ status: 'PENDING' }, c))
    } else if (type === 'criterion.result') {
      const reasons = data.reason ? [data.reason] : []
      const trajectory = trajectoryTable(data.details)
      const judge = trajectory ? undefined : judgeView(data.details)
      const inv = invocation(data.invocation_index, data.invocation_id)
      // Results come when an invocation completes: whatever is still pending then is being judged.
      inv.completed = true
      const criteria = inv.criteria
      const early = criteria.get(data.metric_name)?.early && data.eval_status === 'FAILED'
      criteria.set(data.metric_name, {
        status: data.eval_status ?? 'NOT_EVALUATED',
        score: data.score,
        threshold: data.threshold,
        reasons,
        early,
        trajectory,
        judge,
      })
    } else if (type === 'case.result') state.status = STATUS_NAMES[data.final_eval_status ?? 0] || 'NOT_EVALUATED'
    else if (type === 'error' && data.kind === undefined) {
      // The frame that closes the stream when the server lets the session go (evicted or deleted).
      markGone(String(data.message || 'the server let this session go'))
    } else if (type === 'error') {
      // A rejected event: the session goes on.
      const where = data.kind === 'rejected_event' ? `rejected event ${data.index}${data.path ? ` at ${data.path}` : ''}: ` : ''
      state.errors.push(where + String(data.message || 'error'))
    }
    render()
    refreshConversation()
  }
  /** The server no longer holds the session: say so and why, whatever the results said before. */
  const markGone = (why: string) => {
    // The first word is the precise one (the closing frame's); a later 404 would only say "deleted".
    if (state.gone !== undefined) return
    state.status = 'GONE'
    state.gone = why
  }
  const refused = (error: Error) => {
    if (error instanceof ApiError && error.status === 410) markGone(error.message)
    else if (error instanceof ApiError && error.status === 404) {
      markGone('the server holds no such session: it was deleted (DELETE /v1/sessions/{id}), or the id is wrong')
    }
  }
  let stopped = false
  let goneTimer: ReturnType<typeof setTimeout> | undefined
  const checkGone = () => {
    goneTimer = setTimeout(() => {
      getJson<SessionSnapshot>(`/v1/sessions/${encodeURIComponent(sessionId)}`).then(
        () => stopped || checkGone(),
        (error: Error) => {
          if (stopped) return
          refused(error)
          if (state.status === 'GONE') render()
          else checkGone()
        },
      )
    }, GONE_CHECK_MS)
  }
  let stop = () => {}
  getJson<SessionSnapshot>(`/v1/sessions/${encodeURIComponent(sessionId)}`).then(
    (snapshot) => {
      state.metrics = Array.isArray(snapshot.metrics) ? snapshot.metrics : []
      for (const inv of snapshot.invocations || []) invocation(inv.invocation_index, inv.invocation_id)
      if (snapshot.ended && !snapshot.case_result) state.status = 'ENDED'
      render()
      refreshConversation()
      stop = followResults(sessionId, onResult, (s, error) => {
        state.stream = s
        if (error) refused(error)
        if (s === 'done') checkGone()
        render()
      })
    },
    (error: Error) => {
      state.stream = error.message
      refused(error)
      render()
    },
  )
  return () => {
    stopped = true
    stop()
    clearTimeout(timer)
    clearTimeout(goneTimer)
  }
}
