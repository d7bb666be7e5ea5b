/**
 * A judge nobody answers at: the failure names the judge's address and the network's cause
 * (Node's fetch alone says only "fetch failed"). Both Gemini clients (the real SDK, the plain-fetch
 * one), pointed at a loopback port nobody listens on, so the refusal is immediate and no network is involved.
 * Covers: src/judge/gemini-fetch-client.ts.
 */
import { describe, expect, it } from 'vitest'
import { createGeminiClient } from '../../../src/judge/gemini-client.ts'
import { createGeminiFetchClient } from '../../../src/judge/gemini-fetch-client.ts'
import { REFUSED_ORIGIN } from '../../support/refused-port.ts'

describe.each([['@google/genai', createGeminiClient], ['fetch', createGeminiFetchClient]])(
  'an unreachable judge (%s client)',
  (_, create) => {
    it('is reported with its address and the cause', async () => {
      const client = create({ gemini: { kind: 'gemini-api', apiKey: 'k' }, baseUrl: REFUSED_ORIGIN }, undefined)
      const result = await client.generate({ model: 'gemini-2.5-flash', prompt: 'hi', config: {}, signal: new AbortController().signal })
      expect(result).toMatchObject({ ok: false, message: `cannot reach the judge at ${REFUSED_ORIGIN} (ECONNREFUSED)` })
    })
  },
)
