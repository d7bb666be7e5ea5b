/** The shared ADK vectors: a copy in test/fixtures/vectors if the repo has one, else the team's shared folder. */
import { existsSync, readFileSync } from 'node:fs'

export function loadVectors<T>(name: string): T {
  const local = new URL(`../../fixtures/vectors/${name}`, import.meta.url)
  const text = existsSync(local) ? readFileSync(local, 'utf8') : readFileSync(`/work/shared/vectors/${name}`, 'utf8')
  return JSON.parse(text) as T
}
