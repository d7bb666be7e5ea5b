/**
 * An in-process app with two tenants (acme and globex, EVALSTREAM_TOKENS), for the quota and
 * isolation tests: each call names the tenant whose token it carries.
 */
import { createApp } from '../../../src/http/app.ts'
import type { AppDeps } from '../../../src/http/deps.ts'
import { memorySessionStore } from '../../../src/session/store.ts'
import { depsFromEnv, type Env, type StoreSource } from '../../../src/config/setup.ts'
import { NO_JUDGE_ENV } from '../../support/no-judge-env.ts'

export const TOKENS = { acme: 'acme-token-0123456789abcdef0123456789', globex: 'globex-token-0123456789abcdef012345678' }
export type Tenant = keyof typeof TOKENS
export const TWO_TENANTS_ENV: Env = { EVALSTREAM_TOKENS: `acme:${TOKENS.acme},globex:${TOKENS.globex}` }

/**
 * @example
 * const { call } = twoTenantApp({ EVALSTREAM_MAX_SESSIONS: '4' })
 * await call('acme', 'POST', '/v1/sessions', { eval_config: CONFIG })
 */
export function twoTenantApp(env: Env, host: { store?: StoreSource; deps?: Partial<AppDeps> } = {}) {
  const setup = depsFromEnv({ ...NO_JUDGE_ENV, ...TWO_TENANTS_ENV, ...env }, {
    store: host.store ?? ((limits) => memorySessionStore({ limits })),
  })
  if (!setup.ok) throw new Error(setup.error)
  const deps = { ...setup.deps, ...host.deps }
  const app = createApp(deps)
  const call = (tenant: Tenant, method: string, path: string, body?: unknown, signal?: AbortSignal) =>
    app.fetch(
      new Request(`http://local${path}`, {
        method,
        headers: { authorization: `Bearer ${TOKENS[tenant]}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        ...(signal ? { signal } : {}),
      }),
    )
  return { app, deps, call }
}
