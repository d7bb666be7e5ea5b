/**
 * The OTLP module on Deno: gzip-compressed protobuf decoded (web DecompressionStream) and mapped
 * to the same invocations as on Node. The script lives in a temporary folder and imports the
 * module by absolute URL.
 * Covers: src/otlp/body.ts, src/otlp/decode-protobuf.ts, src/otlp/invocations.ts.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { decodeOtlpFile, DEFAULT_OTLP_LIMITS, toAdkInvocation, tracesToConversations } from '../../../src/otlp/index.ts'
import { BOUNDS, FIXTURE_DIR, fixtureText } from '../../unit/otlp/support/fixtures.ts'

const ROOT = join(import.meta.dirname, '../../..')
const url = (path: string) => pathToFileURL(join(ROOT, path)).href

const SCRIPT = `
import { decodeTraceRequest, decodeLogsRequest, DEFAULT_OTLP_LIMITS, tracesToConversations, toAdkInvocation } from '${
  url('src/otlp/index.ts')
}'
import { encodeTracesProtobuf, encodeLogsProtobuf } from '${url('test/unit/otlp/support/encode-protobuf.ts')}'
const gzip = async (bytes) => new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(new CompressionStream('gzip'))).arrayBuffer())
const out = []
for (const file of Deno.args) {
  const spans = [], logs = []
  for (const line of (await Deno.readTextFile(file)).split('\\n').filter((l) => l.trim())) {
    const body = JSON.parse(line)
    const headers = { contentType: 'application/x-protobuf', contentEncoding: 'gzip' }
    if (body.resourceLogs) logs.push(...(await decodeLogsRequest(await gzip(encodeLogsProtobuf(body)), headers, DEFAULT_OTLP_LIMITS)).logs)
    else spans.push(...(await decodeTraceRequest(await gzip(encodeTracesProtobuf(body)), headers, DEFAULT_OTLP_LIMITS)).spans)
  }
  const conversations = tracesToConversations(spans, logs, { maxJsonDepth: 100, maxStringLength: 1e6 })
  out.push(conversations.map((c) => ({ id: c.conversationId, invocations: c.traces.map(toAdkInvocation) })))
}
console.log(JSON.stringify(out))
`

/** ADK Go's legacy shape, its semconv 1.44 default with content in the details event, ADK Python with content off. */
const FILES = ['adk-go.jsonl', 'adk-now/go-1.44-event-only.jsonl', 'adk-now/py-2.5.0-content-off-elided.jsonl']

describe('OTLP decoding on Deno', () => {
  const dir = mkdtempSync(join(tmpdir(), 'evalstream-otlp-deno-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('decodes gzip protobuf traces and logs (ADK Go, legacy and semconv 1.44; ADK Python content off) to the invocations Node builds', () => {
    const script = join(dir, 'decode.ts')
    writeFileSync(script, SCRIPT)
    const run = spawnSync(join(ROOT, 'node_modules/.bin/deno'), [
      'run',
      '--allow-read',
      '--config',
      join(ROOT, 'deno.json'),
      script,
      ...FILES.map((file) => join(FIXTURE_DIR, file)),
    ], { cwd: ROOT, encoding: 'utf8' })
    expect(run.stderr).toBe('')
    expect(run.status).toBe(0)
    const onNode = FILES.map((file) => {
      const decoded = decodeOtlpFile(fixtureText(file), DEFAULT_OTLP_LIMITS)
      return tracesToConversations(decoded.spans, decoded.logs, BOUNDS).map((c) => ({
        id: c.conversationId,
        invocations: c.traces.map(toAdkInvocation),
      }))
    })
    expect(onNode.map((conversations) => conversations.length)).toEqual([1, 1, 1])
    expect(JSON.parse(run.stdout)).toEqual(JSON.parse(JSON.stringify(onNode)))
  })
})
