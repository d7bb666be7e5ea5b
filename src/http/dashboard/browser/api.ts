/**
 * Calls to the evalstream API with the user's bearer token (sessionStorage, so it goes with the
 * tab), and the results SSE stream read through fetch: EventSource cannot send an Authorization
 * header. The stream resumes with Last-Event-ID after a drop.
 */
import type { ResultData, ResultMessage } from './wire.ts'

const TOKEN_KEY = 'evalstream.token'
/** A frame longer than this (characters) is a broken stream, not something to buffer forever. */
const MAX_FRAME_CHARS = 4 * 1024 * 1024
/** Wait before reconnecting a dropped result stream. */
const RECONNECT_MS = 1000

export function getToken(): string {
  return sessionStorage.getItem(TOKEN_KEY) || ''
}

export function setToken(token: string): void {
  if (token) sessionStorage.setItem(TOKEN_KEY, token)
  else sessionStorage.removeItem(TOKEN_KEY)
}

export class ApiError extends Error {
  readonly status: number
  constructor(status: number, detail: string) {
    super(detail)
    this.status = status
  }
}

function headers(extra?: Record<string, string>): Headers {
  const out = new Headers(extra || {})
  const token = getToken()
  if (token) out.set('authorization', `Bearer ${token}`)
  return out
}

async function failure(response: Response): Promise<ApiError> {
  let detail = `${response.status} ${response.statusText}`
  try {
    const body: unknown = await response.json()
    if (body && typeof body === 'object' && typeof (body as { detail?: unknown }).detail === 'string') {
      detail = (body as { detail: string }).detail
    }
  } catch {
    // Not JSON: the status line says it.
  }
  return new ApiError(response.status, detail)
}

/** GET a JSON document; empty and undefined parameters are left out. */
export async function getJson<T>(path: string, params?: Record<string, string | number | undefined>): Promise<T> {
  const url = new URL(path, location.origin)
  for (const [k, v] of Object.entries(params || {})) if (v !== undefined && v !== '') url.searchParams.set(k, String(v))
  const response = await fetch(url, { headers: headers() })
  if (!response.ok) throw await failure(response)
  return (await response.json()) as T
}

type Frame = { id: string | undefined; event: string; data: string }

/** Parses SSE text frames; calls onFrame({ id, event, data }) per complete frame. */
function frames(onFrame: (frame: Frame) => void): (chunk: string) => void {
  let buffer = ''
  return (chunk) => {
    buffer += chunk.replace(/\r\n?/g, '\n')
    let end = buffer.indexOf('\n\n')
    while (end >= 0) {
      const block = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      const frame: { id: string | undefined; event: string; data: string[] } = { id: undefined, event: 'message', data: [] }
      for (const line of block.split('\n')) {
        if (line === '' || line.startsWith(':')) continue
        const colon = line.indexOf(':')
        const field = colon < 0 ? line : line.slice(0, colon)
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
        if (field === 'id') frame.id = value
        else if (field === 'event') frame.event = value
        else if (field === 'data') frame.data.push(value)
      }
      if (frame.data.length > 0) onFrame({ id: frame.id, event: frame.event, data: frame.data.join('\n') })
      end = buffer.indexOf('\n\n')
    }
    if (buffer.length > MAX_FRAME_CHARS) throw new Error('result stream frame too large')
  }
}

/**
 * Follows a session's results until case.result or stop(); onResult({ seq, type, data }).
 * Returns stop(). onState('live' | 'reconnecting' | 'done' | error message), with the error when
 * the server refused the stream (404: no such session, 410: evicted).
 */
export function followResults(
  sessionId: string,
  onResult: (result: ResultMessage) => void,
  onState: (state: string, error?: ApiError) => void,
): () => void {
  const controller = new AbortController()
  let lastId = 0
  let done = false
  const run = async () => {
    while (!done && !controller.signal.aborted) {
      try {
        const h = headers({ accept: 'text/event-stream' })
        if (lastId > 0) h.set('last-event-id', String(lastId))
        const response = await fetch(`/v1/sessions/${encodeURIComponent(sessionId)}/results`, { headers: h, signal: controller.signal })
        if (!response.ok) throw await failure(response)
        if (!response.body) throw new Error('the results response has no body')
        onState('live')
        const feed = frames((frame) => {
          const seq = Number(frame.id)
          if (Number.isFinite(seq) && seq > 0) lastId = seq
          let data: ResultData
          try {
            data = JSON.parse(frame.data) as ResultData
          } catch {
            return
          }
          onResult({ seq, type: frame.event, data })
          if (frame.event === 'case.result') done = true
        })
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
        for (;;) {
          const { value, done: ended } = await reader.read()
          if (ended) break
          feed(value)
        }
      } catch (error) {
        if (controller.signal.aborted) return
        if (error instanceof ApiError && error.status < 500) {
          done = true
          onState(error.message, error)
          return
        }
      }
      if (!done && !controller.signal.aborted) {
        onState('reconnecting')
        await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS))
      }
    }
    if (done) onState('done')
  }
  void run()
  return () => controller.abort()
}
