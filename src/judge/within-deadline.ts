/**
 * One judge call held to a deadline: AbortSignal.timeout joined to the caller's signal with
 * AbortSignal.any. When the deadline fires the call is told to stop and, whether or not the judge
 * listens, the caller gets an answer at once (error samples saying so), so the slot it holds frees.
 */
import type { JudgeRequest } from '../core/criterion.ts'
import type { Judge, JudgeCallOptions, JudgeReply } from './port.ts'

/** Settles like `promise`, or rejects with the signal's reason as soon as it aborts. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    if (signal.aborted) return onAbort()
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort))
  })
}

/** Makes the signal that aborts when `ms` have passed: AbortSignal.timeout, or a test's own clock. */
export type DeadlineTimer = (ms: number) => AbortSignal

/**
 * The judge's reply within `deadlineMs`, or `{ reply, timedOut: true }` with one error sample per
 * requested sample. Rejects only when `signal` (the caller's) aborts.
 * @example
 * const { reply, timedOut } = await answerWithin(judge, request, { signal, admit }, 90_000)
 */
export async function answerWithin(
  judge: Judge,
  request: JudgeRequest,
  opts: JudgeCallOptions & { signal: AbortSignal },
  deadlineMs: number,
  timer: DeadlineTimer = (ms) => AbortSignal.timeout(ms),
): Promise<{ reply: JudgeReply; timedOut: boolean }> {
  const deadline = timer(deadlineMs)
  const signal = AbortSignal.any([opts.signal, deadline])
  const call = judge.answer(request, { ...opts, signal })
  // A judge that ignores its signal still settles some day; nobody is listening by then.
  call.catch(() => {})
  try {
    return { reply: await untilAborted(call, signal), timedOut: false }
  } catch (error) {
    if (opts.signal.aborted || !deadline.aborted) throw error
    const sample = { error: `judge deadline exceeded: no answer within ${deadlineMs} ms` }
    return { reply: { id: request.id, samples: Array.from({ length: Math.max(1, request.samples) }, () => sample) }, timedOut: true }
  }
}
