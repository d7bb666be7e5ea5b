import { describe, expect, it } from 'vitest'
import { formatFromContentType, sniffFormat } from '../../../src/ingest/format.ts'

describe('formatFromContentType', () => {
  it.each([
    ['text/event-stream', 'sse'],
    ['Text/Event-Stream; charset=utf-8', 'sse'],
    ['application/x-ndjson', 'ndjson'],
    ['application/jsonl', 'ndjson'],
    ['application/json', 'json'],
    ['application/json; charset=utf-8', 'json'],
    ['application/vnd.adk.session+json', 'json'],
    ['text/plain', undefined],
    ['', undefined],
    [null, undefined],
  ])('%s -> %s', (contentType, format) => expect(formatFromContentType(contentType)).toBe(format))
})

describe('sniffFormat', () => {
  it.each([
    ['run.sse', '{}', 'sse'],
    ['events.jsonl', '', 'ndjson'],
    ['events.NDJSON', '', 'ndjson'],
    ['session.json', 'data: x', 'json'],
    [undefined, 'data: {"a":1}\n\n', 'sse'],
    [undefined, ': keepalive\n\ndata: {}\n\n', 'sse'],
    [undefined, '\uFEFF  [{"author":"a"}]', 'json'],
    [undefined, '{"author":"a"}\n{"author":"b"}\n', 'ndjson'],
    [undefined, '{"author":"a"}\n', 'json'],
    [undefined, '{\n  "author": "a"\n}\n', 'json'],
    ['notes.txt', '{"a":1}\n{"b":2}', 'ndjson'],
  ])('%s %j -> %s', (name, text, format) => expect(sniffFormat(text, name)).toBe(format))
})
