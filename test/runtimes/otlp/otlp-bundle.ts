/**
 * The OTLP module bundled as a Worker would carry it (esbuild, ESM, minified), in memory: for the
 * workerd test and the size figures in docs/otlp.md and bench/README.md.
 */
import { build } from 'esbuild'
import { gzipSync } from 'node:zlib'
import { join } from 'node:path'

const ROOT = join(import.meta.dirname, '../../..')

/** The decoder alone (bytes -> spans), and the decoder with the span -> ADK events mapping. */
export const ENTRIES = {
  decoder: `export { decodeTraceRequest, decodeLogsRequest } from './src/otlp/body.ts'`,
  full: `export { decodeTraceRequest, decodeLogsRequest, tracesToConversations, toAdkInvocation } from './src/otlp/index.ts'`,
}

/** A Worker that decodes a POSTed /v1/traces or /v1/logs body and answers the decoded result. */
export const WORKER = `
import { decodeTraceRequest, decodeLogsRequest, DEFAULT_OTLP_LIMITS, tracesToConversations, toAdkInvocation } from './src/otlp/index.ts'
const state = { spans: [], logs: [] }
export default {
  async fetch(request) {
    const url = new URL(request.url)
    const headers = { contentType: request.headers.get('content-type'), contentEncoding: request.headers.get('content-encoding') }
    try {
      if (url.pathname === '/v1/traces') { const d = await decodeTraceRequest(request.body, headers, DEFAULT_OTLP_LIMITS); state.spans.push(...d.spans); return Response.json({ spans: d.spans.length, rejected: d.rejectedCount }) }
      if (url.pathname === '/v1/logs') { const d = await decodeLogsRequest(request.body, headers, DEFAULT_OTLP_LIMITS); state.logs.push(...d.logs); return Response.json({ logs: d.logs.length, rejected: d.rejectedCount }) }
      const conversations = tracesToConversations(state.spans, state.logs, { maxJsonDepth: 100, maxStringLength: 1e6 })
      return Response.json(conversations.map((c) => ({ id: c.conversationId, invocations: c.traces.map(toAdkInvocation) })))
    } catch (error) {
      return Response.json({ status: error.status ?? 500, message: String(error.message) }, { status: error.status ?? 500 })
    }
  },
}`

/** Bundle `source` (resolved from the repository root); returns the code and its sizes. */
export async function bundle(source: string, minify = true): Promise<{ code: string; bytes: number; gzipBytes: number }> {
  const result = await build({
    stdin: { contents: source, resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    minify,
    write: false,
    logLevel: 'silent',
  })
  const code = result.outputFiles[0]!.text
  return { code, bytes: Buffer.byteLength(code), gzipBytes: gzipSync(code).byteLength }
}
