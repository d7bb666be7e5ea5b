/**
 * Which body format a request or file is in: from its Content-Type, or sniffed from a file's name
 * and first bytes.
 */
import type { EventFormat } from './types.ts'

const NDJSON_TYPES = new Set([
  'application/x-ndjson',
  'application/ndjson',
  'application/jsonl',
  'application/x-jsonlines',
  'application/jsonlines',
])

/**
 * @example formatFromContentType('text/event-stream; charset=utf-8') // 'sse'
 */
export function formatFromContentType(contentType: string | null | undefined): EventFormat | undefined {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase()
  if (type === 'text/event-stream') return 'sse'
  if (NDJSON_TYPES.has(type)) return 'ndjson'
  if (type === 'application/json' || /^application\/[\w.+-]+\+json$/.test(type)) return 'json'
  return undefined
}

const EXTENSIONS: Record<string, EventFormat> = { sse: 'sse', ndjson: 'ndjson', jsonl: 'ndjson', json: 'json' }

/**
 * Guess a file's format: by extension (`.sse`, `.ndjson`/`.jsonl`, `.json`), else by content.
 * A body starting with `[` is JSON; one starting with an SSE field or comment is SSE; one whose
 * first line is a complete JSON value followed by more lines is NDJSON; anything else is JSON.
 * @example sniffFormat('{"author":"a"}\n{"author":"b"}\n') // 'ndjson'
 */
export function sniffFormat(text: string, fileName?: string): EventFormat {
  const extension = fileName?.toLowerCase().match(/\.([a-z]+)$/)?.[1]
  const byName = extension ? EXTENSIONS[extension] : undefined
  if (byName) return byName
  const body = text.replace(/^\uFEFF/, '').trimStart()
  if (body.startsWith('[')) return 'json'
  if (/^(?::|data:|event:|id:|retry:)/.test(body)) return 'sse'
  const newline = body.indexOf('\n')
  if (newline === -1 || body.slice(newline + 1).trim() === '') return 'json'
  try {
    JSON.parse(body.slice(0, newline))
    return 'ndjson'
  } catch {
    return 'json' // e.g. a pretty-printed object, whose first line is just `{`
  }
}
