/**
 * The judge port: the one seam between evalstream's engine and whatever answers judge requests
 * (Gemini through @google/genai, OpenAI-compatible servers, the Workers AI binding, Vertex's
 * evaluation service, a test double, a replay of stored answers). The engine only ever talks to a
 * `Judge`, wrapped by the executor in ./executor.ts.
 */
import type { JudgeAnswer, JudgeRequest } from '../core/criterion.ts'

/** Model calls and tokens one answer cost; retries of a failed attempt count in `attempts` only. */
export type JudgeUsage = {
  /** Logical model calls (a candidateCount request that returns 5 samples counts once). */
  requests: number
  /** HTTP attempts, retries included. */
  attempts: number
  /** Prompt tokens the calls reported (Gemini's usageMetadata.promptTokenCount, chat completions' usage.prompt_tokens). */
  promptTokens: number
  /** Output tokens the calls reported (candidatesTokenCount, completion_tokens). */
  outputTokens: number
}

/** A JudgeAnswer plus what it cost; `usage` is dropped before an answer is cached or returned. */
export type JudgeReply = JudgeAnswer & { usage?: JudgeUsage }

export type JudgeCallOptions = {
  signal?: AbortSignal
  /**
   * Asked before every model call. Returns null to allow it, or the reason it is refused (a
   * budget): the judge then stops calling and fills the remaining samples with `{ error: reason }`.
   */
  admit?: () => string | null
}

/**
 * Answers one JudgeRequest. Never rejects for a failed model call (a failed sample is
 * `{ error }`); rejects only when `signal` aborts.
 * @example
 * const judge: Judge = { answer: async (r) => ({ id: r.id, via: 'gemini', samples: [{ text: '{}' }] }) }
 */
export interface Judge {
  answer(request: JudgeRequest, opts: JudgeCallOptions): Promise<JudgeReply>
}

/** Zero usage, the starting point of a sum. */
export function emptyUsage(): JudgeUsage {
  return { requests: 0, attempts: 0, promptTokens: 0, outputTokens: 0 }
}
