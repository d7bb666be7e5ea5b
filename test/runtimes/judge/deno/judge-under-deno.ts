/**
 * Run by test/runtimes/judge/judge-deno.test.ts under Deno: the judge, the executor and the SDK against the
 * Node-hosted Gemini stub whose URL is the first argument. Prints one JSON line of what happened.
 */
import { createJudgeExecutor } from '../../../../src/judge/executor.ts'
import { createGeminiJudge } from '../../../../src/judge/gemini.ts'

// Typed locally: tsc has no Deno types, and this file only ever runs under Deno.
const deno = (globalThis as unknown as { Deno: { args: string[]; exit(code: number): never } }).Deno
const baseUrl = deno.args[0] as string
const sleeps: number[] = []
// Answers are given all the time a loaded machine may need; only the hanging call meets the short
// attempt timeout, and nothing else can reach it first, so no outcome depends on the machine's speed.
const geminiJudge = (timeoutMs: number) =>
  createGeminiJudge(
    { gemini: { kind: 'gemini-api', apiKey: 'k' }, baseUrl },
    { timeoutMs, sleep: async (ms) => void sleeps.push(ms), retry: { attempts: 2, initialDelayMs: 10, maxDelayMs: 10 } },
  )
const executor = createJudgeExecutor({ judge: geminiJudge(60_000), concurrency: 2, concurrencyPerSession: 1, deadlineMs: 120_000 })
const hasty = createJudgeExecutor({ judge: geminiJudge(300), concurrency: 2, concurrencyPerSession: 1, deadlineMs: 120_000 })
const req = (id: string) => ({ id, model: 'gemini-2.5-flash', prompt: id, samples: 1 })

// The stub decides by prompt: "ok" answers, "retry" is a 429 with Retry-After: 3 then answers,
// "slow" hangs (the attempt timeout fires), "deaf" hangs under a judge that ignores its signal.
const ok = await executor.answer(req('ok'), { sessionId: 's' })
const retried = await executor.answer(req('retry'), { sessionId: 's' })
const slow = await hasty.answer(req('slow'), { sessionId: 's' })
const deafExecutor = createJudgeExecutor({ judge: { answer: () => new Promise(() => {}) }, concurrency: 1, deadlineMs: 100 })
const deaf = await deafExecutor.answer(req('deaf'), { sessionId: 's' })
const aborted = await executor
  .answer(req('hang-abort'), { sessionId: 's', signal: AbortSignal.timeout(100) })
  .then(() => 'answered', (e) => (e as DOMException).name)
executor.release('s')
hasty.release('s')
console.log(JSON.stringify({ ok, retried, slow, deaf, aborted, sleeps, tracked: executor.trackedSessions() + hasty.trackedSessions() }))
// The hung connections are the stub's to close; nothing here should keep Deno alive.
deno.exit(0)
