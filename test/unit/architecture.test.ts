/**
 * The layering, checked on the source: every folder imports only folders to its left.
 *
 *   adk <- core, ingest <- engine, judge, otlp <- session <- monitor, export, runner, otlp-monitor <- http
 *       <- config <- adapter, worker
 *
 * Folders on the same level do not import each other either (core/ingest, engine/judge,
 * monitor/export/runner/otlp-monitor, adapter/worker). The composition root (config) sits above http because
 * it builds the app's deps. And no module imports itself back through any chain of imports.
 * Besides: src/core imports neither hono, @google/genai nor node:*; src/engine imports no package
 * but zod (its result schemas are the wire protocol); only src/judge
 * imports @google/genai; only src/adapter imports node:* and only src/adapter and worker/ touch
 * runtime globals (process, Deno, Bun, globalThis, Buffer, require, __dirname), besides three named
 * capability probes, so the app runs unchanged on Node, Deno and workerd.
 * Covers: the import graph of src/ and worker/.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(import.meta.dirname, '../..')

/** Folder -> level; a folder may import folders of a lower level (and itself) only. */
const LEVELS: Record<string, number> = {
  adk: 0,
  core: 1,
  ingest: 1,
  engine: 2,
  judge: 2,
  otlp: 2,
  session: 3,
  monitor: 4,
  export: 4,
  runner: 4,
  'otlp-monitor': 4,
  http: 5,
  config: 6,
  adapter: 7,
  worker: 7,
}
/** src/index.ts and the package's other entry files sit above everything. */
const TOP = '(entry)'

/**
 * Known violations, each waiting for a fix on another branch. An entry here that no longer occurs
 * fails too, so the list only shrinks.
 */
const KNOWN_VIOLATIONS = new Set<string>([])

type Import = { file: string; specifier: string; target: string | null }

function tsFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)))
    .sort()
}

/** Comments out, so a `process.env` or an `import` in JSDoc does not count. */
export function stripComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1')
}

/** Every static, re-export, side-effect and dynamic import specifier of one module's source. */
export function importSpecifiers(source: string): string[] {
  const code = stripComments(source)
  const found: string[] = []
  const patterns = [
    /\b(?:import|export)\b[^;'"`]*?\bfrom\s*['"]([^'"]+)['"]/g, // import x from '…', export * from '…'
    /\bimport\s*['"]([^'"]+)['"]/g, // import '…'
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g, // import('…')
  ]
  for (const pattern of patterns) for (const m of code.matchAll(pattern)) found.push(m[1]!)
  return found
}

function folderOf(file: string): string {
  const parts = file.split('/')
  if (parts[0] === 'worker') return 'worker'
  return parts.length === 2 ? TOP : parts[1]!
}

const FILES = [...tsFiles('src'), ...tsFiles('worker')]
const IMPORTS: Import[] = FILES.flatMap((file) =>
  importSpecifiers(readFileSync(join(ROOT, file), 'utf8')).map((specifier) => ({
    file,
    specifier,
    target: specifier.startsWith('.') ? relative(ROOT, resolve(ROOT, dirname(file), specifier)) : null,
  }))
)

describe('the import parser', () => {
  it('finds every kind of import and ignores comments', () => {
    const source = [
      "import { a } from './a.ts'",
      "import type {\n  B,\n} from '../b/b.ts'",
      "export * from './c.ts'",
      "import './d.ts'",
      "const e = await import('./e.ts')",
      "// import { f } from './f.ts'",
      "/* import g from './g.ts' */",
      "const url = 'http://x' // import h from './h.ts'",
    ].join('\n')
    expect(importSpecifiers(source).sort()).toEqual(['../b/b.ts', './a.ts', './c.ts', './d.ts', './e.ts'])
  })

  it('sees the whole tree', () => {
    expect(FILES.length).toBeGreaterThan(50)
    expect(IMPORTS.filter((i) => i.target).length).toBeGreaterThan(200)
  })
})

describe('layering: a folder imports only folders to its left', () => {
  const crossings = IMPORTS.filter((i) => i.target !== null && folderOf(i.target) !== folderOf(i.file))
  const violations = crossings
    .filter((i) => {
      const from = folderOf(i.file)
      const to = folderOf(i.target!)
      if (from === TOP) return false
      if (!(from in LEVELS) || !(to in LEVELS)) return true // a new folder must be placed in LEVELS
      return LEVELS[to]! >= LEVELS[from]!
    })
    .map((i) => `${i.file} -> ${i.target}`)

  it('has no new violation', () => {
    expect(violations.filter((v) => !KNOWN_VIOLATIONS.has(v))).toEqual([])
  })

  it('has no stale entry in KNOWN_VIOLATIONS (remove the ones that were fixed)', () => {
    expect([...KNOWN_VIOLATIONS].filter((v) => !violations.includes(v))).toEqual([])
  })
})

/**
 * Import circles between modules (file level), found by an iterative depth-first search: each
 * circle is reported once, as the path from the first module of it that the search reached.
 */
export function importCircles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const state = new Map<string, 'open' | 'done'>()
  const circles: string[][] = []
  for (const start of graph.keys()) {
    if (state.has(start)) continue
    const path: string[] = [start]
    const next: number[] = [0]
    state.set(start, 'open')
    while (path.length > 0) {
      const node = path[path.length - 1]!
      const edges = graph.get(node) ?? []
      const i = next[next.length - 1]!
      if (i >= edges.length) {
        state.set(node, 'done')
        path.pop()
        next.pop()
        continue
      }
      next[next.length - 1] = i + 1
      const to = edges[i]!
      const seen = state.get(to)
      if (seen === 'open') circles.push([...path.slice(path.indexOf(to)), to])
      else if (seen === undefined && graph.has(to)) {
        state.set(to, 'open')
        path.push(to)
        next.push(0)
      }
    }
  }
  return circles
}

describe('no import circle anywhere in src/ and worker/', () => {
  it('the search finds a circle when there is one', () => {
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a', 'd']],
      ['d', []],
    ])
    expect(importCircles(graph)).toEqual([['a', 'b', 'c', 'a']])
    expect(importCircles(new Map([['a', ['b']], ['b', []]]))).toEqual([])
  })

  it('has none', () => {
    const graph = new Map<string, string[]>(FILES.map((f) => [f, []]))
    for (const i of IMPORTS) if (i.target !== null && graph.has(i.target)) graph.get(i.file)!.push(i.target)
    expect(importCircles(graph).map((c) => c.join(' -> '))).toEqual([])
  })
})

describe('packages and runtime specifics stay where they belong', () => {
  const packageImports = (test: (specifier: string) => boolean) =>
    IMPORTS.filter((i) => i.target === null && test(i.specifier)).map((i) => `${i.file}: ${i.specifier}`)

  it('src/core imports no hono, @google/genai or node:*', () => {
    const bad = packageImports((s) => /^(hono|@hono\/|@google\/genai|node:)/.test(s)).filter((l) => l.startsWith('src/core/'))
    expect(bad).toEqual([])
  })

  // The engine declares the result stream's wire protocol as zod schemas (src/engine/result-events.ts),
  // which every host and client reads: zod is its only package, so no transport or judge SDK
  // creeps into the protocol or the scoring.
  it('src/engine imports no package but zod', () => {
    const bad = packageImports((s) => s !== 'zod').filter((l) => l.startsWith('src/engine/'))
    expect(bad).toEqual([])
  })

  it('src/otlp reads only src/adk and src/core (it decodes and maps; hosting is for the layers above)', () => {
    const bad = IMPORTS.filter((i) =>
      i.file.startsWith('src/otlp/') && (i.target === null ? i.specifier !== 'zod' : !/^src\/(adk|core|otlp)\//.test(i.target))
    )
    expect(bad.map((i) => `${i.file}: ${i.specifier}`)).toEqual([])
  })

  it('only src/judge imports @google/genai', () => {
    const bad = packageImports((s) => s.startsWith('@google/genai')).filter((l) => !l.startsWith('src/judge/'))
    expect(bad).toEqual([])
  })

  it('only src/adapter imports node:* modules', () => {
    const bad = packageImports((s) => s.startsWith('node:')).filter((l) => !l.startsWith('src/adapter/'))
    expect(bad).toEqual([])
  })

  // `globalThis` counts too: `(globalThis as …).Deno` is a runtime global by another spelling.
  // A property named `process` (`caps.process`, `{ process: 1 }`) is not the global.
  const RUNTIME_GLOBAL = /(?<![.\w$])(?:process|Deno|Bun)\b(?!\s*:)|\bglobalThis\b|\bBuffer\b|\b__dirname\b|\b__filename\b|\brequire\s*\(/
  const runtimeGlobalLines = (file: string) =>
    stripComments(readFileSync(join(ROOT, file), 'utf8'))
      .replace(/(['"`])(?:\\.|(?!\1).)*\1/g, "''") // a word inside a string is no reference
      .split('\n')
      .flatMap((line, i) => (RUNTIME_GLOBAL.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : []))
  /**
   * The probes for an optional capability, each behind one function with a fallback where the
   * capability is missing, so the code calling them runs everywhere: a file here may test
   * `globalThis` for what it names, and nothing else below src/adapter and worker/ may.
   */
  const CAPABILITY_PROBES: Record<string, string> = {
    'src/engine/cpu-budget.ts': 'process.threadCpuUsage (Node 24), else the wall clock',
    'src/ingest/turn-slicer.ts': 'setImmediate (Node, Deno), else setTimeout(0)',
    'src/ingest/unref-timer.ts': 'Deno.unrefTimer, where a timer has no unref()',
  }

  it('only src/adapter and worker/ touch runtime globals, and the named capability probes', () => {
    const bad = FILES.filter((f) => !f.startsWith('src/adapter/') && !f.startsWith('worker/') && !(f in CAPABILITY_PROBES))
      .flatMap(runtimeGlobalLines)
    expect(bad).toEqual([])
  })

  it('each capability probe still probes (remove the ones that no longer do)', () => {
    expect(Object.keys(CAPABILITY_PROBES).filter((f) => runtimeGlobalLines(f).length === 0)).toEqual([])
  })

  // Settings are read in one place, on one rule (src/config/env.ts): every other folder takes
  // values, so a setting's variable, default and error live beside the other settings.
  it('only src/config, src/adapter and worker/ take an environment', () => {
    // Hono's `c.env` is the request's bindings (node-server's request message), not settings.
    const takesEnv = /(?<!\bc\.)\benv\b|\w+FromEnv\s*[(<]/
    const readers = FILES.filter((f) => f.includes('/') && /^src\/[^/]+\//.test(f))
      .filter((f) => !/^src\/(config|adapter)\//.test(f))
      .filter((f) => takesEnv.test(stripComments(readFileSync(join(ROOT, f), 'utf8')).replace(/(['"`])(?:\\.|(?!\1).)*\1/g, "''")))
    expect(readers).toEqual([])
  })
})
