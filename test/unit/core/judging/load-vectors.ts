/** The shared ADK vectors: a copy in test/fixtures/vectors if the repo has one, else the team's shared folder. */
import { readShared } from '../../../support/shared-data.ts'

export function loadVectors<T>(name: string): T {
  const text = readShared('vectors', name)
  return JSON.parse(text) as T
}
