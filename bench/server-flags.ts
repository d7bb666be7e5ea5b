/**
 * The Node flags `npm start` gives the server (the words before the server script in package.json's
 * `start`), so a bench that starts the server itself runs it as `npm start` does, and with --root
 * another checkout's server runs with that checkout's flags.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

/** @example startFlags('.') // ['--max-semi-space-size=16'] */
export function startFlags(root: string): string[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts?: { start?: string } }
  const words = (pkg.scripts?.start ?? '').split(/\s+/)
  const script = words.findIndex((w) => w.endsWith('server.ts'))
  return words.slice(0, Math.max(0, script)).filter((w) => w.startsWith('--'))
}
