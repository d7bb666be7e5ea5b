/**
 * The layering, checked on the source: every folder imports only folders to its left.
 *
 *   adk <- core, ingest <- engine, judge <- host <- runner <- http <- adapter, worker
 *
 * Folders on the same level do not import each other either (core/ingest, engine/judge,
 * adapter/worker). Besides: src/core imports neither hono, @google/genai nor node:*; only src/judge
 * imports @google/genai; only src/adapter imports node:* and only src/adapter and worker/ touch
 * runtime globals (process, Deno, Bun, Buffer, require, __dirname), so the app runs unchanged on
 * Node, Deno and workerd.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(import.meta.dirname, '../..')

/** Folder -> level; a folder may import folders of a lower level (and itself) only. */
const LEVELS: Record<string, number> = { adk: 0, core: 1, ingest: 1, engine: 2, judge: 2, host: 3, runner: 4, http: 5, adapter: 6, worker: 6 }
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
  })),
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

describe('packages and runtime specifics stay where they belong', () => {
  const packageImports = (test: (specifier: string) => boolean) =>
    IMPORTS.filter((i) => i.target === null && test(i.specifier)).map((i) => `${i.file}: ${i.specifier}`)

  it('src/core imports no hono, @google/genai or node:*', () => {
    const bad = packageImports((s) => /^(hono|@hono\/|@google\/genai|node:)/.test(s)).filter((l) => l.startsWith('src/core/'))
    expect(bad).toEqual([])
  })

  it('only src/judge imports @google/genai', () => {
    const bad = packageImports((s) => s.startsWith('@google/genai')).filter((l) => !l.startsWith('src/judge/'))
    expect(bad).toEqual([])
  })

  it('only src/adapter imports node:* modules', () => {
    const bad = packageImports((s) => s.startsWith('node:')).filter((l) => !l.startsWith('src/adapter/'))
    expect(bad).toEqual([])
  })

  it('only src/adapter and worker/ touch runtime globals', () => {
    const global = /\b(?:process|Deno|Bun)\s*\.|\bBuffer\b|\b__dirname\b|\b__filename\b|\brequire\s*\(/
    const bad = FILES.filter((f) => !f.startsWith('src/adapter/') && !f.startsWith('worker/')).flatMap((file) =>
      stripComments(readFileSync(join(ROOT, file), 'utf8'))
        .split('\n')
        .flatMap((line, i) => (global.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    )
    expect(bad).toEqual([])
  })
})
