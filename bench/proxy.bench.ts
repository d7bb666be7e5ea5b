/**
 * Proxy mode latency: how much later each agent frame reaches an ADK client through evalstream
 * (POST /run_sse forwarded to the agent, every frame scored and passed on, results interleaved)
 * than when the client talks to the agent directly. Same agent, same client, runs alternating.
 *
 *   npx node bench/proxy.bench.ts [runs=300] [gapMs=2]
 *
 * The scripted agent stub and the client live in this process, so a frame's send time and receive
 * time come from one clock; evalstream runs as its own Node process (as deployed), on loopback.
 * A third column is the floor of any proxy: the same extra hop passing the body on untouched.
 * Every run is one /run_sse call streaming the recorded weather run (5 frames, `gapMs` apart).
 */
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import { EventSourceParserStream } from 'eventsource-parser/stream'

const CONFIG = { criteria: { tool_trajectory_avg_score: 1.0, response_match_score: 0.8 } }

if (process.argv[2] === '--evalstream') {
  // Child process: evalstream in proxy mode in front of the agent at argv[3].
  const { createApp } = await import('../src/http/app.ts')
  const { memorySessionStore } = await import('../src/session/store.ts')
  const { createSessionEngine } = await import('../src/engine/session-engine.ts')
  const app = createApp({
    store: memorySessionStore(),
    createEngine: (o) => createSessionEngine(o),
    agentUrl: process.argv[3],
    defaultConfig: CONFIG,
  })
  // The floor of any proxy: the same hop with nothing done to the stream (fetch, pass the body on).
  const bare = async (request: Request) => {
    const upstream = await fetch(`${process.argv[3]}/run_sse`, { method: 'POST', headers: request.headers, body: await request.text() })
    return new Response(upstream.body, { status: upstream.status, headers: { 'content-type': 'text/event-stream' } })
  }
  const fetchBoth = (request: Request) => (new URL(request.url).pathname === '/bare/run_sse' ? bare(request) : app.fetch(request))
  serve({ fetch: fetchBoth, port: 0, hostname: '127.0.0.1' }, (info) => console.log(`PORT ${info.port}`))
} else {
  await main()
}

async function main(): Promise<void> {
  const RUNS = Number(process.argv[2] ?? 300)
  const GAP_MS = Number(process.argv[3] ?? 2)
  const sample = readFileSync(new URL('../test/fixtures/shared/samples/adk-js-weather.sse', import.meta.url), 'utf8')
  const frames = sample.split(/(?<=\n\n)/).filter((f) => f.startsWith('data: {'))
  const now = () => performance.now()

  // The scripted agent: each frame carries the moment it was written.
  let runNo = 0
  const agent = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      const invocation = `e-bench-${runNo++}`
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
      let i = 0
      const next = () => {
        if (i >= frames.length) return void res.end()
        const frame = frames[i++]!.replace(/e-[0-9a-f-]{36}/g, invocation)
        res.write(frame.replace('data: {', `data: {"benchSentAt":${now()},`))
        setTimeout(next, GAP_MS)
      }
      next()
    })
  })
  await new Promise<void>((resolve) => agent.listen(0, '127.0.0.1', resolve))
  const agentUrl = `http://127.0.0.1:${(agent.address() as AddressInfo).port}`

  const child = spawn(process.execPath, [new URL(import.meta.url).pathname, '--evalstream', agentUrl], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  process.on('exit', () => child.kill())
  const proxyUrl = await new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (text: string) => {
      const port = /PORT (\d+)/.exec(text)?.[1]
      if (port) resolve(`http://127.0.0.1:${port}`)
    })
    child.on('exit', (code) => reject(new Error(`evalstream exited with ${code}`)))
  })

  /** One /run_sse call: latency of every agent frame, and how many evalstream frames came along. */
  async function run(base: string, n: number, path = '/run_sse'): Promise<{ latencies: number[]; results: number }> {
    const body = {
      appName: 'weather_agent',
      userId: 'u1',
      sessionId: `s-${base.slice(-5)}-${n}`,
      newMessage: { role: 'user', parts: [{ text: 'Weather and time in Paris?' }] },
    }
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      // Results asked for inline, so the measured stream carries them (by default it is the agent's frames only).
      headers: { 'content-type': 'application/json', 'x-evalstream-results': 'inline' },
      body: JSON.stringify(body),
    })
    const latencies: number[] = []
    let results = 0
    const events = res.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream())
    for await (const message of events) {
      const received = now()
      if (message.event === 'evalstream') results++
      else latencies.push(received - (JSON.parse(message.data) as { benchSentAt: number }).benchSentAt)
    }
    return { latencies, results }
  }

  const direct: number[] = []
  const proxied: number[] = []
  const bare: number[] = []
  // By frame position in the run: the first one also pays for creating the session.
  const byPosition = frames.map(() => ({ direct: [] as number[], proxied: [] as number[] }))
  let results = 0
  for (let i = 0; i < 20; i++) {
    await run(agentUrl, -i) // warm-up both paths (JIT, connections)
    await run(proxyUrl, -i)
    await run(proxyUrl, -i, '/bare/run_sse')
  }
  for (let i = 0; i < RUNS; i++) {
    const d = await run(agentUrl, i)
    direct.push(...d.latencies)
    d.latencies.forEach((x, k) => byPosition[k]?.direct.push(x))
    const p = await run(proxyUrl, i)
    proxied.push(...p.latencies)
    p.latencies.forEach((x, k) => byPosition[k]?.proxied.push(x))
    bare.push(...(await run(proxyUrl, i, '/bare/run_sse')).latencies)
    results += p.results
  }
  child.kill()
  agent.close()

  const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!
  const ms = (x: number) => `${x.toFixed(3)} ms`
  console.log(
    `${RUNS} runs x ${frames.length} frames, ${GAP_MS} ms apart; Node ${process.version}; ${results} evalstream result frames interleaved`,
  )
  for (const [name, xs] of [['direct', direct], ['bare pass-through', bare], ['through evalstream', proxied]] as const) {
    console.log(
      `${name.padEnd(19)} frames ${xs.length}  p50 ${ms(q(xs, 0.5))}  p90 ${ms(q(xs, 0.9))}  p99 ${ms(q(xs, 0.99))}  max ${ms(q(xs, 1))}`,
    )
  }
  byPosition.forEach((b, k) =>
    console.log(
      `  frame ${k + 1}: direct p50 ${ms(q(b.direct, 0.5))} p99 ${ms(q(b.direct, 0.99))} | through evalstream p50 ${
        ms(q(b.proxied, 0.5))
      } p99 ${ms(q(b.proxied, 0.99))}`,
    )
  )
  console.log(`added by evalstream: p50 ${ms(q(proxied, 0.5) - q(direct, 0.5))}  p99 ${ms(q(proxied, 0.99) - q(direct, 0.99))}`)
}
