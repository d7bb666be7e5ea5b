/**
 * The one-call contract every judge model client answers: the Gemini clients (./gemini-client.ts,
 * ./gemini-fetch-client.ts), the OpenAI-compatible one (./openai-client.ts) and the Workers AI
 * binding's (./workers-ai-client.ts). One call asks for `candidateCount` candidates and comes back
 * as a plain value, so the same retry (./judge-call.ts) and sampling (./judge-samples.ts) drive them all.
 */
import type { JudgeSample } from '../core/criterion.ts'

export type GenerateCall = {
  model: string
  prompt: string
  /** SDK config (camelCase), systemInstruction and candidateCount included. */
  config: Record<string, unknown>
  signal: AbortSignal
}

export type GenerateResult =
  | { ok: true; samples: JudgeSample[]; promptTokens: number; outputTokens: number }
  | {
    ok: false
    /** HTTP status of an API error; absent for network failures and unreadable bodies. */
    status?: number
    message: string
    /** The Retry-After header of the failed response, raw. */
    retryAfter?: string
    /** The response came but could not be read (not JSON): another attempt will not help. */
    malformed: boolean
    /** The server refused several candidates in one request (set by clients that can tell). */
    nRejected?: boolean
  }

/** One model call; rejects only when `call.signal` aborts. */
export type ModelClient = { generate(call: GenerateCall): Promise<GenerateResult> }
