/**
 * The proxy's frame rules: an agent frame named `evalstream` is renamed, ours are formatted like
 * every other SSE frame, and hop-by-hop headers (the fixed list and those `Connection` names) stay
 * on their hop.
 * Covers: src/http/proxy/interleave.ts, src/http/proxy/forward.ts, src/http/proxy/agent-body.ts.
 */
import { describe, expect, it } from 'vitest'
import { causeOf } from '../../../../src/http/proxy/agent-body.ts'
import { forwardHeaders } from '../../../../src/http/proxy/forward.ts'
import type { ResultEvent } from '../../../../src/engine/types.ts'
import { ourFrame, renameAgentEvalstream, RENAMED_AGENT_EVENT } from '../../../../src/http/proxy/interleave.ts'

describe('renameAgentEvalstream', () => {
  it('renames an event field named evalstream, with any line end and with or without the space', () => {
    for (
      const [frame, renamed] of [
        ['event: evalstream\ndata: {}\n\n', `event: ${RENAMED_AGENT_EVENT}\ndata: {}\n\n`],
        ['event:evalstream\r\ndata: {}\r\n\r\n', `event: ${RENAMED_AGENT_EVENT}\r\ndata: {}\r\n\r\n`],
        ['data: {}\revent: evalstream\r\r', `data: {}\revent: ${RENAMED_AGENT_EVENT}\r\r`],
        ['id: 1\nevent: evalstream\nevent: evalstream\n\n', `id: 1\nevent: ${RENAMED_AGENT_EVENT}\nevent: ${RENAMED_AGENT_EVENT}\n\n`],
      ] as const
    ) {
      expect(renameAgentEvalstream(frame)).toBe(renamed)
    }
  })

  it('leaves everything else alone: other names, and the words inside data', () => {
    for (
      const frame of [
        'event: evalstreams\ndata: {}\n\n',
        'event: agent-evalstream\ndata: {}\n\n',
        'data: event: evalstream\n\n',
        'data: {"text":"event: evalstream"}\n\n',
        ' event: evalstream\n\n',
      ]
    ) {
      expect(renameAgentEvalstream(frame)).toBe(frame)
    }
  })

  it('our frame is event evalstream with {seq, type, data} and no id', () => {
    // Only the framing is under test: a criterion result cut down to one field.
    expect(ourFrame({ seq: 3, type: 'criterion.result', key: 'k', data: { score: 1 } } as ResultEvent)).toBe(
      'event: evalstream\ndata: {"seq":3,"type":"criterion.result","data":{"score":1}}\n\n',
    )
  })
})

describe('forwardHeaders', () => {
  it('drops the fixed hop-by-hop headers, those the Connection header names (any case, any spacing), and ours', () => {
    const headers = new Headers({
      connection: 'keep-alive,  X-Hop-One , x-hop-two',
      'keep-alive': 'timeout=5',
      'x-hop-one': '1',
      'x-hop-two': '2',
      'transfer-encoding': 'chunked',
      'x-evalstream-session': 's',
      'content-type': 'text/event-stream',
      'x-end-to-end': 'kept',
    })
    expect([...forwardHeaders(headers).keys()].sort()).toEqual(['content-type', 'x-end-to-end'])
  })
})

describe('causeOf', () => {
  it('adds the cause fetch keeps behind "fetch failed"', () => {
    expect(causeOf(new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:1') }))).toBe(
      'fetch failed (connect ECONNREFUSED 127.0.0.1:1)',
    )
    expect(causeOf(new Error('plain'))).toBe('plain')
  })
})
