/**
 * Where tests find the shared reference data (ADK vectors, /run_sse captures, ADK fixtures, real ADK traces): the
 * copy committed under test/fixtures/shared, so a fresh clone needs nothing beside it.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export type SharedFolder = 'vectors' | 'samples' | 'adk-fixtures' | 'otlp-real'

const ROOT = new URL('../fixtures/shared/', import.meta.url)

/** Absolute path of a shared file, e.g. sharedPath('samples', 'adk-js-weather.sse'). */
export function sharedPath(folder: SharedFolder, name = ''): string {
  return fileURLToPath(new URL(`${folder}/${name}`, ROOT))
}

export function readShared(folder: SharedFolder, name: string): string {
  return readFileSync(sharedPath(folder, name), 'utf8')
}

export function readSharedJson<T = unknown>(folder: SharedFolder, name: string): T {
  return JSON.parse(readShared(folder, name)) as T
}
