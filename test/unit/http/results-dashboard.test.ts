/**
 * The dashboard's server side in process: the page and its assets are public even with tokens
 * (and nothing else becomes public with them), carry a strict CSP, and the client code never
 * writes markup from strings; GET /v1/sessions/{id}/conversation shows a session's turns to its
 * own tenant only; a host without an index says so.
 * Covers: src/http/dashboard/routes.ts.
 */
import { describe, expect, it } from 'vitest'
import { createApp } from '../../../src/http/app.ts'
import { DASHBOARD_ASSETS } from '../../../src/http/dashboard/routes.ts'
import { memorySessionStore } from '../../../src/session/store.ts'
import { createSessionEngine } from '../../../src/engine/session-engine.ts'
import { MAX_TRANSCRIPT_ENTRIES, MAX_TRANSCRIPT_TEXT_CHARS, Transcript } from '../../../src/session/transcript.ts'
import { Conversation, ResultsPage, SessionList, Stats } from '../../../src/http/results-docs.ts'
import { indexedHost } from '../../support/results-support.ts'
import { DatabaseSync } from 'node:sqlite'
import type { Journal, JournalEntry } from '../../../src/session/journal.ts'

const ACME = 'acme-dashboard-token-0123456789abcdef'
const GLOBEX = 'globex-dashboard-token-0123456789abcd'
const TOKENS = { EVALSTREAM_TOKENS: `acme:${ACME},globex:${GLOBEX}` }

describe('dashboard page and assets', () => {
  it('serves / and every asset without a token, with a CSP that forbids inline script', async () => {
    const host = indexedHost(TOKENS)
    const page = await host.call('GET', '/')
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const csp = page.headers.get('content-security-policy')!
    expect(csp).toContain("script-src 'self'")
    expect(csp).not.toContain('unsafe-inline')
    expect(page.headers.get('x-content-type-options')).toBe('nosniff')
    for (const [name, asset] of Object.entries(DASHBOARD_ASSETS)) {
      const res = await host.call('GET', `/dashboard/${name}`)
      expect(res.status, name).toBe(200)
      expect(res.headers.get('content-type')).toBe(asset.type)
      expect(await res.text()).toBe(asset.body)
    }
    // Only those: anything else still needs the token.
    expect((await host.call('GET', '/dashboard/secrets.js')).status).toBe(401)
    expect((await host.call('GET', '/v1/sessions')).status).toBe(401)
  })

  it('client code puts strings into the page as text only', () => {
    for (const [name, asset] of Object.entries(DASHBOARD_ASSETS)) {
      if (!name.endsWith('.js')) continue
      expect(asset.body, name).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/)
    }
  })
})

describe('GET /v1/sessions/{id}/conversation', () => {
  it("shows the session's turns to its tenant and nobody else", async () => {
    const host = indexedHost(TOKENS)
    await host.run('acme:talk', { token: ACME, end: false })
    const res = await host.call('GET', '/v1/sessions/acme:talk/conversation', ACME)
    expect(res.status).toBe(200)
    const body: any = await res.json()
    expect(body.ended).toBe(false)
    expect(body.dropped).toBe(0)
    expect(body.entries.map((e: any) => e.parts.map((p: any) => (p.kind === 'text' ? p.text : `${p.kind}:${p.name}`)))).toEqual([
      ['call:get_weather'],
      ['response:get_weather'],
      ['call:get_time'],
      ['response:get_time'],
      ['In Paris it is sunny, 21C, and the time is 10:30.'],
    ])
    expect((await host.call('GET', '/v1/sessions/acme:talk/conversation', GLOBEX)).status).toBe(404)
    expect((await host.call('GET', '/v1/sessions/nobody/conversation', ACME)).status).toBe(404)
  })

  it('reads the same turns from the SQLite journal as the memory store keeps, open and ended', async () => {
    const memory = indexedHost()
    const sqlite = indexedHost({}, { db: new DatabaseSync(':memory:') })
    for (const host of [memory, sqlite]) await host.run('talk', { end: false })
    const open = await memory.json('/v1/sessions/talk/conversation')
    expect(open.entries).toHaveLength(5)
    expect(await sqlite.json('/v1/sessions/talk/conversation')).toEqual(open)
    for (const host of [memory, sqlite]) expect((await host.call('POST', '/v1/sessions/talk/end')).status).toBe(200)
    const ended = await memory.json('/v1/sessions/talk/conversation')
    expect(ended.ended).toBe(true)
    expect(await sqlite.json('/v1/sessions/talk/conversation')).toEqual(ended)
  })

  it('clips long text to MAX_TRANSCRIPT_TEXT_CHARS', async () => {
    const host = indexedHost()
    await host.call(
      'POST',
      '/v1/sessions',
      undefined,
      JSON.stringify({ session_id: 'long', eval_config: { criteria: { response_match_score: 0.5 } } }),
    )
    const event = { invocation_id: 'i1', author: 'user', content: { parts: [{ text: 'y'.repeat(MAX_TRANSCRIPT_TEXT_CHARS + 10) }] } }
    await (await host.call('POST', '/v1/sessions/long/events', undefined, JSON.stringify([event]))).text()
    const body: any = await (await host.call('GET', '/v1/sessions/long/conversation')).json()
    expect(body.entries[0].parts[0].text).toHaveLength(MAX_TRANSCRIPT_TEXT_CHARS + 1)
  })
})

describe('/openapi.json', () => {
  it('describes the monitoring answers with schemas the real answers parse with', async () => {
    const host = indexedHost()
    await host.run('doc-1')
    await host.run('doc-2', { tools: ['get_time'], end: false })
    for (
      const [path, schema] of [
        ['/v1/results', ResultsPage],
        ['/v1/stats', Stats],
        ['/v1/sessions', SessionList],
        ['/v1/sessions/doc-2/conversation', Conversation],
      ] as const
    ) {
      const parsed = schema.unwrap().strict().safeParse(await host.json(path))
      expect(parsed.success, `${path}: ${JSON.stringify(parsed.error?.issues.slice(0, 3))}`).toBe(true)
    }
    const doc: any = await host.json('/openapi.json')
    expect(doc.paths['/v1/stats'].get.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/Stats')
    expect(doc.paths['/'].get.security).toEqual([])
  })
})

describe('Transcript', () => {
  it('keeps the newest MAX_TRANSCRIPT_ENTRIES entries and counts the dropped ones; skips events with nothing to show', () => {
    const transcript = new Transcript()
    for (let index = 0; index < MAX_TRANSCRIPT_ENTRIES + 3; index++) {
      transcript.add({ index, raw: {}, event: { invocation_id: 'i', author: 'agent', content: { parts: [{ text: `t${index}` }] } } as any })
    }
    transcript.add({ index: 9999, raw: {}, event: { invocation_id: 'i', author: 'agent' } as any })
    const { entries, dropped } = transcript.toJSON()
    expect(entries).toHaveLength(MAX_TRANSCRIPT_ENTRIES)
    expect(dropped).toBe(3)
    expect(entries[0]!.parts).toEqual([{ kind: 'text', text: 't3' }])
    expect(entries.at(-1)!.index).toBe(MAX_TRANSCRIPT_ENTRIES + 2)
  })

  it('over a journal it can read back, holds no event and answers as the kept transcript does', () => {
    const kept: JournalEntry[] = []
    const journal: Journal = { append: (e) => void kept.push(e), entries: () => kept, rereadable: true }
    const fromJournal = new Transcript(journal)
    const inMemory = new Transcript()
    const event = (index: number) => ({ invocationId: 'i', author: 'agent', content: { parts: [{ text: `t${index}` }] } })
    for (const count of [3, MAX_TRANSCRIPT_ENTRIES, MAX_TRANSCRIPT_ENTRIES + 7]) {
      kept.length = 0
      const memory = new Transcript()
      for (let index = 0; index < count; index++) {
        journal.append({ op: 'event', index, raw: event(index) })
        if (index === 1) journal.append({ op: 'reject', rejected: { index: 99, message: 'bad' } })
        if (index === 2) journal.append({ op: 'event', index: 98, raw: { invocationId: 'i', author: 'agent' } })
        memory.add({
          index,
          raw: event(index),
          event: { invocation_id: 'i', author: 'agent', content: { parts: [{ text: `t${index}` }] } } as any,
        })
      }
      const answer = fromJournal.toJSON()
      expect(answer, `${count} events`).toEqual(memory.toJSON())
      expect(answer.entries).toHaveLength(Math.min(count, MAX_TRANSCRIPT_ENTRIES))
      expect(answer.dropped).toBe(Math.max(0, count - MAX_TRANSCRIPT_ENTRIES))
    }
    fromJournal.freeze()
    expect(fromJournal.heldBytes).toBe(0)
    expect(fromJournal.toJSON().entries.at(-1)!.parts).toEqual([{ kind: 'text', text: `t${MAX_TRANSCRIPT_ENTRIES + 6}` }])
    expect(inMemory.toJSON().entries).toEqual([])
  })
})

describe('a host without a results index', () => {
  it('answers the monitoring routes with a 404 that says why', async () => {
    const app = createApp({ store: memorySessionStore(), createEngine: (o) => createSessionEngine(o) })
    for (const path of ['/v1/results', '/v1/stats', '/v1/sessions']) {
      const res = await app.request(path)
      expect(res.status).toBe(404)
      expect(((await res.json()) as any).detail).toContain('no results index')
    }
  })
})
