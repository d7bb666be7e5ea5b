/**
 * The judge on Deno (the Node adapter's tests cover Node, test/worker covers workerd): attempt
 * timeouts and the judge deadline through AbortSignal.any + AbortSignal.timeout, Retry-After read
 * through the SDK's per-call fetch, and release(), all against the loopback Gemini stub.
 * Covers: src/judge/judge-router.ts, src/judge/judge-call.ts, src/judge/retry.ts.
 */
import { execFile } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiError, type GeminiStub, startGeminiStub } from '../../support/gemini-stub.ts'

let stub: GeminiStub
beforeAll(async () => {
  stub = await startGeminiStub()
  let retried = false
  stub.handle((request) => {
    const prompt = request.body?.contents?.[0]?.parts?.[0]?.text
    if (prompt === 'ok') return { candidates: ['fine'] }
    if (prompt === 'retry' && !retried) return (retried = true), apiError(429, 'quota', { 'retry-after': '3' })
    if (prompt === 'retry') return { candidates: ['after retry'] }
    return { hang: true }
  })
})
afterAll(() => stub?.close())

function runDeno(): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(
      'node_modules/.bin/deno',
      ['run', '--allow-net', '--allow-env', '--allow-read', 'test/runtimes/judge/deno/judge-under-deno.ts', stub.url],
      { env: { ...process.env, NO_COLOR: '1' }, timeout: 120_000 },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)),
    )
  )
}

describe('the judge under Deno', () => {
  it('answers, retries after Retry-After, times out attempts, meets the deadline and releases', async () => {
    const out = JSON.parse((await runDeno()).trim().split('\n').at(-1) as string)
    expect(out.ok).toEqual({ id: 'ok', via: 'gemini', samples: [{ text: 'fine' }] })
    expect(out.retried.samples).toEqual([{ text: 'after retry' }])
    expect(out.sleeps).toEqual([3_000])
    expect(out.slow.samples).toEqual([{ error: 'judge call timed out after 300 ms' }])
    expect(out.deaf).toEqual({ id: 'deaf', samples: [{ error: 'judge deadline exceeded: no answer within 100 ms' }] })
    expect(out.aborted).toBe('TimeoutError')
    expect(out.tracked).toBe(0)
  }, 150_000)
})
