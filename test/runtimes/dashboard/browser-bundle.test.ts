/**
 * The dashboard's browser code is real TypeScript: it type-checks on its own (DOM lib, no Node
 * types), and the generated module every runtime serves as /dashboard/main.js is exactly what
 * esbuild makes of it now (a stale bundle fails here, naming the command that refreshes it).
 * Runtimes project: tsc and esbuild run as child processes.
 * Covers: src/http/dashboard/browser/, src/http/dashboard/bundle.generated.ts, scripts/dashboard-bundle.ts.
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { bundleDashboard, GENERATED, generatedModule } from '../../../scripts/dashboard-bundle.ts'
import { DASHBOARD_JS } from '../../../src/http/dashboard/bundle.generated.ts'
import { dashboardRoutes } from '../../../src/http/dashboard/routes.ts'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))

describe('dashboard browser modules', () => {
  it('type-check with the DOM lib and strict settings', () => {
    const tsc = spawnSync('node_modules/.bin/tsc', ['-p', 'src/http/dashboard/browser/tsconfig.json'], { cwd: ROOT, encoding: 'utf8' })
    expect(tsc.stdout + tsc.stderr).toBe('')
    expect(tsc.status).toBe(0)
  })

  it('the committed bundle is current (else: npm run build:dashboard)', async () => {
    const fresh = await bundleDashboard()
    expect(readFileSync(GENERATED, 'utf8'), 'run npm run build:dashboard').toBe(generatedModule(fresh))
    // One self-contained module: no import left for the browser to fetch, and every module's code is in it.
    expect(fresh).not.toMatch(/^\s*import\s/m)
    for (const name of ['api.ts', 'dom.ts', 'session.ts', 'stats.ts', 'main.ts']) expect(fresh).toContain(`// ${name}\n`)
  })

  it('is what /dashboard/main.js serves, and the modules the page used to load separately are gone', async () => {
    const app = dashboardRoutes()
    const res = await app.request('/dashboard/main.js')
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8')
    expect(await res.text()).toBe(DASHBOARD_JS)
    expect((await app.request('/dashboard/api.js')).status).toBe(404)
  })
})
