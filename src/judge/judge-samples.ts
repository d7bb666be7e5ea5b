/**
 * How the samples of one request are drawn: where the model allows it, ONE call with
 * candidateCount = samples; otherwise (or for the samples a short reply left missing) one call per
 * sample, stopping as soon as `request.decided` says the vote can no longer change. Every model
 * call is admitted first (budgets); a refusal fills the remaining samples with its reason.
 */
import type { JudgeRequest, JudgeSample } from '../core/criterion.ts'
import type { Batch } from './judge-call.ts'
import type { JudgeCallOptions, JudgeReply } from './port.ts'
import { emptyUsage, type JudgeUsage } from './port.ts'

/** One logical call for `n` candidates, counted in `usage`. */
export type CallFn = (n: number, usage: JudgeUsage) => Promise<Batch>

/** Models that refused candidateCount once; they are asked one sample at a time from then on. */
export type CandidateCountMemory = Set<string>

function texts(samples: JudgeSample[]): string[] {
  return samples.flatMap((s) => ('text' in s ? [s.text] : []))
}

function fill(samples: JudgeSample[], want: number, error: string): void {
  while (samples.length < want) samples.push({ error })
}

/**
 * @example
 * const reply = await drawSamples(request, { signal }, (n, usage) => callModel(client, request, n, { signal }, usage, settings), new Set(), {
 *   via: 'gemini',
 *   batches: true,
 * })
 */
export async function drawSamples(
  request: JudgeRequest,
  opts: JudgeCallOptions,
  call: CallFn,
  noCandidateCount: CandidateCountMemory,
  /** The service's name in the answer, and whether it can return several candidates per call. */
  service: { via: string; batches: boolean },
): Promise<JudgeReply> {
  const usage = emptyUsage()
  const want = Math.max(1, request.samples)
  const samples: JudgeSample[] = []
  const reply = (): JudgeReply => ({ id: request.id, via: service.via, samples, usage })

  if (want > 1 && service.batches && !noCandidateCount.has(request.model)) {
    const refused = opts.admit?.()
    if (refused) return fill(samples, want, refused), reply()
    const batch = await call(want, usage)
    if (batch.kind === 'error' && batch.candidateCountRejected) noCandidateCount.add(request.model)
    else if (batch.kind === 'error') return fill(samples, want, batch.error), reply()
    else if (batch.samples.length === 0) return fill(samples, want, 'judge returned no candidates'), reply()
    else samples.push(...batch.samples.slice(0, want))
  }
  // One sample per call: the fallback, and the rest of a batch that came back short.
  while (samples.length < want) {
    if (samples.length > 0 && request.decided?.(texts(samples))) break
    const refused = opts.admit?.()
    if (refused) return fill(samples, want, refused), reply()
    const one = await call(1, usage)
    samples.push(one.kind === 'ok' ? (one.samples[0] ?? { error: 'judge returned no candidates' }) : { error: one.error })
  }
  return reply()
}
