/**
 * The Durable Object that hosts one eval set run (`run:<id>` in the RUNS namespace): the same app
 * as everywhere, whose `/v1/runs` routes drive the run against AGENT_URL and stream its results.
 * A run keeps its state in memory, as on Node: it owns no storage, and its case sessions are the
 * runner's own engines, not stored sessions.
 */
import { createApp } from '../src/http/app.ts'
import type { Exporters } from '../src/export/exporters.ts'
import { depsFromEnv } from '../src/config/setup.ts'
import { memorySessionStore } from '../src/session/store.ts'
import { type DurableObjectState, stringEnv, type WorkerEnv } from './types.ts'
import { misconfigured, WORKER_PROCESS_BYTES } from './session-object.ts'

export class EvalRun {
  state: DurableObjectState
  app: { fetch(request: Request): Response | Promise<Response> }
  exporters: Exporters | undefined

  constructor(state: DurableObjectState, env: WorkerEnv) {
    this.state = state
    const setup = depsFromEnv(stringEnv(env), {
      store: memorySessionStore({ sweeper: 'manual' }),
      defaultProcessBytes: WORKER_PROCESS_BYTES,
      workersAi: env.AI,
    })
    this.exporters = setup.ok ? setup.deps.exporters : undefined
    // The router (index.ts) answers CORS; the object checks the bearer token again itself.
    this.app = setup.ok ? createApp({ ...setup.deps, cors: undefined }) : { fetch: () => misconfigured(setup.error) }
  }

  async fetch(request: Request): Promise<Response> {
    const response = await this.app.fetch(request)
    // OpenTelemetry exports and webhooks of the run's results finish after the response is sent.
    if (this.exporters) this.state.waitUntil?.(this.exporters.idle())
    return response
  }
}
