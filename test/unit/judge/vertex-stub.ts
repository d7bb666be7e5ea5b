/**
 * A loopback stub of the Vertex AI evaluation protocol and Google's OAuth token endpoint. Its
 * expectations come from the facts in /work/shared/spec/adk-newer-metrics.md (§1.3, §1.6, §1.8),
 * not from evalstream's client: the token endpoint verifies the RS256 JWT assertion with the
 * service account's public key and its claims; evaluateInstances records each request and lists
 * every way it differs from the shape ADK's client sends (`problems`). Test-only.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * A fresh RS256 key pair for a test service account: the public key the stub verifies with, and the
 * private key as the PEM of a service account JSON file (64-character lines, as Google writes it).
 * @example const { publicKey, pem } = await testSigningKey()
 */
export async function testSigningKey(): Promise<{ publicKey: CryptoKey; pem: string }> {
  const keys = await crypto.subtle.generateKey(
    { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
    true,
    ['sign', 'verify'],
  )
  const pkcs8 = Buffer.from(await crypto.subtle.exportKey('pkcs8', keys.privateKey)).toString('base64')
  return {
    publicKey: keys.publicKey,
    pem: `-----BEGIN PRIVATE KEY-----\n${pkcs8.match(/.{1,64}/g)!.join('\n')}\n-----END PRIVATE KEY-----\n`,
  }
}

export type VertexCall = { path: string; headers: Record<string, string | string[] | undefined>; body: any; problems: string[] }

export type VertexStub = {
  url: string
  token: string
  calls: VertexCall[]
  tokenExchanges: number
  /** The evaluateInstances answer body for a call. */
  answer(reply: (call: VertexCall) => unknown): void
  close(): Promise<void>
}

const b64url = (s: string) => Buffer.from(s.replace(/-/g, '+').replace(/_/g, '/'), 'base64')

/** What ADK's client sends for a predefined metric (spec §1.8 items 2-3 and §1.3 Inputs). */
export function predefinedProblems(body: any): string[] {
  const problems: string[] = []
  const keys = Object.keys(body ?? {}).sort().join(',')
  if (keys !== 'instance,metrics') problems.push(`top-level keys are ${keys}, expected instance,metrics (no autorater_config)`)
  const spec = body?.metrics?.[0]?.predefined_metric_spec
  if (body?.metrics?.length !== 1 || typeof spec?.metric_spec_name !== 'string') {
    problems.push('metrics must be one predefined_metric_spec with a metric_spec_name')
  }
  if (spec && spec.metric_spec_parameters !== undefined && spec.metric_spec_parameters !== null) {
    problems.push('metric_spec_parameters must be null or absent')
  }
  const instance = body?.instance ?? {}
  for (const field of ['prompt', 'response']) {
    if (!Array.isArray(instance[field]?.contents?.contents)) {
      problems.push(`instance.${field} must be { contents: { contents: [Content] } }`)
    }
  }
  const data = instance.agent_eval_data
  if (!Array.isArray(data?.turns)) problems.push('instance.agent_eval_data.turns must be a list')
  for (const [i, turn] of (data?.turns ?? []).entries()) {
    if (turn.turn_index !== i) problems.push(`turn ${i}: turn_index ${turn.turn_index}`)
    if (typeof turn.turn_id !== 'string') problems.push(`turn ${i}: turn_id must be a string`)
    if (!Array.isArray(turn.events) || turn.events[0]?.author !== 'user') problems.push(`turn ${i}: events must start with the user's`)
    for (const e of turn.events ?? []) {
      if (typeof e.author !== 'string' || typeof e.content !== 'object') problems.push(`turn ${i}: an event without author/content`)
    }
  }
  for (const [name, agent] of Object.entries<any>(data?.agents ?? {})) {
    if (agent.agent_id !== name) problems.push(`agent ${name}: agent_id must be its name`)
    if (typeof agent.instruction !== 'string' || !Array.isArray(agent.tool_declarations)) {
      problems.push(`agent ${name}: instruction and tool_declarations`)
    }
  }
  return problems
}

export async function startVertexStub(publicKey: CryptoKey, clientEmail: string): Promise<VertexStub> {
  const calls: VertexCall[] = []
  let reply: (call: VertexCall) => unknown = () => ({ metric_results: [{}] })
  const stub = {
    url: '',
    token: 'ya29.stub-token',
    calls,
    tokenExchanges: 0,
    answer: (r: typeof reply) => void (reply = r),
    close: async () => {},
  }

  async function tokenReply(form: URLSearchParams): Promise<[number, unknown]> {
    if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return [400, { error: 'unsupported_grant_type' }]
    const [h, c, sig] = (form.get('assertion') ?? '').split('.')
    const header = JSON.parse(b64url(h ?? '').toString())
    const claims = JSON.parse(b64url(c ?? '').toString())
    const valid = await crypto.subtle.verify('RSASSA-PKCS1-v1_5', publicKey, b64url(sig ?? ''), new TextEncoder().encode(`${h}.${c}`))
    if (!valid || header.alg !== 'RS256') return [400, { error: 'invalid_grant', error_description: 'bad signature' }]
    const ok = claims.iss === clientEmail && claims.aud === `${stub.url}/token` &&
      claims.scope === 'https://www.googleapis.com/auth/cloud-platform' && claims.exp - claims.iat === 3600
    if (!ok) return [400, { error: 'invalid_grant', error_description: `bad claims ${JSON.stringify(claims)}` }]
    stub.tokenExchanges++
    return [200, { access_token: stub.token, expires_in: 3599, token_type: 'Bearer' }]
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', async () => {
      const raw = Buffer.concat(chunks).toString('utf8')
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' })
        res.end(JSON.stringify(body))
      }
      if (req.url === '/token') {
        const [status, body] = await tokenReply(new URLSearchParams(raw))
        return send(status, body)
      }
      const body = JSON.parse(raw)
      const problems = body.coherence_input ? [] : predefinedProblems(body)
      const call = { path: req.url ?? '', headers: req.headers, body, problems }
      calls.push(call)
      if (req.headers.authorization !== `Bearer ${stub.token}` && !req.headers['x-goog-api-key']) {
        return send(401, { error: { code: 401, message: 'no credentials' } })
      }
      send(200, reply(call))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  stub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  stub.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return stub
}
