/**
 * The session store port: where sessions live between requests. In memory on Node and Deno; on
 * Workers each Durable Object is a store holding one session in SQLite (worker/session-object.ts).
 */
import type { SessionSpec } from '../engine/types.ts'
import { createResultLog, memoryResultStorage } from './result-log.ts'
import { HostedSession, NO_JOURNAL, type EngineCreation, type EngineFactory } from './session.ts'

export type CreateOutcome =
  | { ok: true; session: HostedSession }
  | Extract<EngineCreation, { ok: false }>

export interface SessionStore {
  /** 409 problem when the id is taken; 400/422 when the engine refuses the spec. */
  create(spec: SessionSpec, createEngine: EngineFactory): Promise<CreateOutcome>
  /** A live session, rebuilt from persistence if the host was restarted. */
  get(id: string, createEngine: EngineFactory): Promise<HostedSession | undefined>
}

export const SESSION_EXISTS = (id: string): Extract<EngineCreation, { ok: false }> => ({
  ok: false,
  status: 409,
  title: 'Session already exists',
  detail: `a session with id '${id}' already exists; pick another session_id or omit it`,
})

/**
 * Sessions in a Map; nothing survives a restart, so nothing is journaled.
 * @example
 * const app = createApp({ store: memorySessionStore(), createEngine })
 */
export function memorySessionStore(): SessionStore {
  const sessions = new Map<string, HostedSession>()
  // Reserve ids while the engine is being created, so two racing creates cannot both win.
  const pending = new Set<string>()
  return {
    async create(spec, createEngine) {
      const id = spec.session_id
      if (sessions.has(id) || pending.has(id)) return SESSION_EXISTS(id)
      pending.add(id)
      try {
        const log = createResultLog(memoryResultStorage())
        const opened = await HostedSession.open({ spec, log, journal: NO_JOURNAL, createEngine })
        if (opened.ok) sessions.set(id, opened.session)
        return opened
      } finally {
        pending.delete(id)
      }
    },
    get: async (id) => sessions.get(id),
  }
}
