/**
 * Every environment variable the code reads is in docs/configuration.md, and the table lists no
 * variable the code does not read. The code is scanned, not a hand-kept list: reads are
 * `env.NAME` / `env?.NAME` (process.env, a Worker's env, the env record a setup function takes),
 * `env.get('NAME')` (Deno.env), and a string literal naming a variable with one of the prefixes the
 * settings use, which is how the table-driven readers (limits, timeouts) name theirs. Durable
 * Object bindings declared in wrangler.toml are bindings, not variables.
 * Covers: docs/configuration.md against every read in src/ and worker/.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('../../../', import.meta.url))
const SCANNED = ['src', 'worker']
/** Not code that runs on a server or in the CLI: the browser modules and their generated bundle. */
const SKIPPED = [/dashboard[\\/]browser[\\/]/, /\.generated\.ts$/]

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) sourceFiles(path, out)
    else if (/\.(ts|js)$/.test(name) && !SKIPPED.some((re) => re.test(path))) out.push(path)
  }
  return out
}

/** Comments removed, so a variable mentioned in prose is not a read. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|\s)\/\/.*$/gm, '$1')
}

export function envReads(text: string): Set<string> {
  const names = new Set<string>()
  const c = code(text)
  for (const m of c.matchAll(/\benv\??\.([A-Z][A-Z0-9_]*)\b/g)) names.add(m[1]!)
  for (const m of c.matchAll(/\benv\??\.get\(\s*['"]([A-Z][A-Z0-9_]*)['"]/g)) names.add(m[1]!)
  for (const m of c.matchAll(/['"]((?:EVALSTREAM|OTEL|GEMINI|GOOGLE|VERTEX)_[A-Z0-9_]*[A-Z0-9])['"]/g)) names.add(m[1]!)
  return names
}

function bindings(): Set<string> {
  const toml = readFileSync(join(ROOT, 'wrangler.toml'), 'utf8')
  return new Set([...toml.matchAll(/^\s*name\s*=\s*"([A-Z][A-Z0-9_]*)"/gm)].map((m) => m[1]!))
}

function documented(): Set<string> {
  const doc = readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8')
  const names = new Set<string>()
  for (const line of doc.split('\n')) {
    if (!line.startsWith('| `')) continue
    const first = line.split('|')[1]!
    for (const m of first.matchAll(/`([A-Z][A-Z0-9_]*)(?:=[^`]*)?`/g)) names.add(m[1]!)
  }
  return names
}

describe('environment variables', () => {
  const read = new Map<string, string[]>()
  for (const dir of SCANNED) {
    for (const file of sourceFiles(join(ROOT, dir))) {
      for (const name of envReads(readFileSync(file, 'utf8'))) read.set(name, [...(read.get(name) ?? []), file.slice(ROOT.length)])
    }
  }
  for (const binding of bindings()) read.delete(binding)

  it('the scanner finds reads in each of its forms and ignores comments', () => {
    const sample =
      "const a = env.PORT\nconst b = Deno.env.get('HOST')\nnumberVar(env, 'EVALSTREAM_X_MS')\n// env.NOT_READ\n/* 'EVALSTREAM_NOPE' */"
    expect([...envReads(sample)].sort()).toEqual(['EVALSTREAM_X_MS', 'HOST', 'PORT'])
  })

  it('finds the variables the issue named as undocumented (the scan sees them)', () => {
    for (const name of ['HOST', 'GOOGLE_CLOUD_ACCESS_TOKEN', 'VERTEX_EVAL_BASE_URL', 'GOOGLE_GENAI_USE_VERTEXAI']) {
      expect(read.has(name), name).toBe(true)
    }
  })

  it('every variable read is in docs/configuration.md', () => {
    const docs = documented()
    const missing = [...read].filter(([name]) => !docs.has(name)).map(([name, files]) => `${name} (${[...new Set(files)].join(', ')})`)
    expect(missing).toEqual([])
  })

  it('docs/configuration.md lists no variable the code does not read', () => {
    expect([...documented()].filter((name) => !read.has(name))).toEqual([])
  })
})
