/**
 * A loopback HTTP receiver for exporter tests: an OTLP/HTTP collector stand-in (POST /v1/logs) or
 * a webhook endpoint. It records every request and answers with the status `respond` picks (200 by
 * default), so tests can make it fail (500, 429) and watch the retries, or hold the answer. Tests wait on `waitFor`,
 * which resolves as soon as the recorded requests satisfy a condition: no sleeping.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export type Received = { method: string; path: string; headers: Record<string, string>; body: string; json: unknown }

export type Receiver = {
  url: string
  requests: Received[]
  /** Resolves with the requests once `until(requests)` holds; rejects after `timeoutMs`. */
  waitFor(until: (requests: Received[]) => boolean, timeoutMs?: number): Promise<Received[]>
  close(): Promise<void>
}

/** The OTLP log records of every request so far, each with its resource attributes flattened. */
export function logRecords(requests: Received[]) {
  type Attr = { key: string; value: Record<string, unknown> }
  const flat = (attrs: Attr[] = []) => Object.fromEntries(attrs.map((a) => [a.key, Object.values(a.value)[0]]))
  return requests.flatMap((r) => {
    const body = r.json as {
      resourceLogs?: Array<
        {
          resource: { attributes: Attr[] }
          scopeLogs: Array<{ scope: { name: string }; logRecords: Array<Record<string, unknown> & { attributes: Attr[] }> }>
        }
      >
    }
    return (body.resourceLogs ?? []).flatMap((rl) =>
      rl.scopeLogs.flatMap((sl) =>
        sl.logRecords.map((record) => ({
          record,
          attributes: flat(record.attributes),
          resource: flat(rl.resource.attributes),
          scope: sl.scope.name,
        }))
      )
    )
  })
}

/**
 * @example
 * const otlp = await startReceiver()
 * await otlp.waitFor((rs) => logRecords(rs).length >= 2)
 */
export async function startReceiver(
  respond: (request: Received, index: number) => number | Promise<number> = () => 200,
): Promise<Receiver> {
  const requests: Received[] = []
  const waiters = new Set<() => void>()
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      let json: unknown
      try {
        json = JSON.parse(body)
      } catch {
        json = undefined
      }
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]))
      const received = { method: req.method ?? '', path: req.url ?? '', headers, body, json }
      const answer = respond(received, requests.length)
      requests.push(received)
      for (const wake of waiters) wake()
      // A test may hold the answer (a promise) to keep the request in flight.
      void Promise.resolve(answer).then((status) => {
        res.writeHead(status, { 'content-type': 'application/json' })
        res.end(status === 200 ? '{}' : '{"error":"the receiver was told to fail"}')
      })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    waitFor(until, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!until(requests)) return
          waiters.delete(check)
          clearTimeout(timer)
          resolve(requests)
        }
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(
            new Error(
              `the receiver did not get what was expected within ${timeoutMs} ms; it got ${requests.length} request(s):\n${
                requests.map((r) => r.body.slice(0, 300)).join('\n')
              }`,
            ),
          )
        }, timeoutMs)
        waiters.add(check)
        check()
      })
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
