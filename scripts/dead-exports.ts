/**
 * Lists exports of src/ and worker/ that nothing else names: not another module, a test, a bench,
 * a script, nor the package's entry points (deno.json's exports, followed through re-exports).
 * A text scan, not a compiler: a name counts as used when another file has it as a whole word
 * outside comments, so it errs towards keeping. `--tests` also lists exports only tests use.
 * Run: npx node scripts/dead-exports.ts [--tests]
 */
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

const ROOT = resolve(import.meta.dirname, '..')
const SOURCE_DIRS = ['src', 'worker']
const USER_DIRS = ['test', 'bench', 'scripts', 'bin']

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.(ts|js)$/.test(e.name) && !e.parentPath.includes('node_modules'))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)))
}

const stripComments = (source: string): string => source.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1')
const text = new Map<string, string>()
const read = (file: string): string => {
  let t = text.get(file)
  if (t === undefined) text.set(file, t = stripComments(readFileSync(join(ROOT, file), 'utf8')))
  return t
}

/** The names a module declares as exports (not its re-exports). */
function declaredExports(file: string): string[] {
  const code = read(file)
  const names = [...code.matchAll(/^export\s+(?:declare\s+)?(?:async\s+)?(?:function\*?|const|let|class|type|interface|enum)\s+(\w+)/gm)]
    .map((m) => m[1]!)
  for (const m of code.matchAll(/^export\s+(?:type\s+)?\{([^}]*)\}(?!\s*from)/gm)) {
    for (const part of m[1]!.split(',')) {
      const name = part.trim().replace(/^type\s+/, '').split(/\s+as\s+/).pop()!
      if (name) names.push(name)
    }
  }
  return names
}

/** Every name an entry point makes public, following `export *` and `export { … } from`. */
function publicNames(entries: string[]): Map<string, Set<string>> {
  const byFile = new Map<string, Set<string>>()
  const visit = (file: string, only: Set<string> | 'all') => {
    const names = byFile.get(file) ?? new Set<string>()
    byFile.set(file, names)
    for (const name of declaredExports(file)) if (only === 'all' || only.has(name)) names.add(name)
    for (const m of read(file).matchAll(/^export\s+(?:type\s+)?(\*|\{[^}]*\})\s*from\s*['"](\.[^'"]+)['"]/gm)) {
      const target = relative(ROOT, resolve(ROOT, dirname(file), m[2]!))
      const listed = m[1] === '*' ? 'all' : new Set(
        m[1]!.slice(1, -1).split(',').map((p) => p.trim().replace(/^type\s+/, '').split(/\s+as\s+/)[0]!).filter(Boolean),
      )
      visit(target, listed)
    }
  }
  for (const entry of entries) visit(entry, 'all')
  return byFile
}

const denoJson = JSON.parse(readFileSync(join(ROOT, 'deno.json'), 'utf8')) as { exports: Record<string, string> }
const entries = Object.values(denoJson.exports).map((p) => relative(ROOT, join(ROOT, p)))
const exported = publicNames(entries)
const sources = SOURCE_DIRS.flatMap(files)
const users = USER_DIRS.flatMap(files)
const withTests = process.argv.includes('--tests')

const usedIn = (name: string, pool: string[], self: string) => {
  const word = new RegExp(`\\b${name}\\b`)
  return pool.some((f) => f !== self && word.test(read(f)))
}

const dead: string[] = []
const testOnly: string[] = []
for (const file of sources.sort()) {
  for (const name of declaredExports(file)) {
    if (exported.get(file)?.has(name)) continue
    if (usedIn(name, sources, file)) continue
    if (!usedIn(name, users, file)) dead.push(`${file}: ${name}`)
    else if (withTests && !usedIn(name, users.filter((f) => !f.startsWith('test/')), file)) testOnly.push(`${file}: ${name}`)
  }
}
console.log(dead.length === 0 ? 'no dead export' : `${dead.length} export(s) nothing names:\n${dead.join('\n')}`)
if (withTests) console.log(`${testOnly.length} export(s) only tests name:\n${testOnly.join('\n')}`)
