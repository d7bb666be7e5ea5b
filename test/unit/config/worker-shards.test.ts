/**
 * Covers: src/config/worker-shards.ts. The shard counts follow the one whole-number rule, within
 * 1..MAX_SHARDS: a typo or a count past what one read may fan out to stops the start, naming the variable.
 */
import { describe, expect, it } from 'vitest'
import { DEFAULT_INDEX_SHARDS, DEFAULT_OTLP_SHARDS, MAX_SHARDS, workerShardsFromEnv } from '../../../src/config/worker-shards.ts'

describe('workerShardsFromEnv', () => {
  it('defaults, and takes each count from its variable', () => {
    expect(workerShardsFromEnv({})).toEqual({ ok: true, value: { otlp: DEFAULT_OTLP_SHARDS, index: DEFAULT_INDEX_SHARDS } })
    expect(workerShardsFromEnv({ EVALSTREAM_OTLP_SHARDS: '16', EVALSTREAM_INDEX_SHARDS: '1' })).toEqual({
      ok: true,
      value: { otlp: 16, index: 1 },
    })
  })

  it.each([
    ['EVALSTREAM_OTLP_SHARDS', '0'],
    ['EVALSTREAM_OTLP_SHARDS', String(MAX_SHARDS + 1)],
    ['EVALSTREAM_INDEX_SHARDS', '2.5'],
    ['EVALSTREAM_INDEX_SHARDS', 'four'],
  ])('%s=%s stops the start, naming it', (name, value) => {
    const read = workerShardsFromEnv({ [name]: value })
    expect(read.ok).toBe(false)
    expect(!read.ok && read.error).toBe(`${name} must be a whole number from 1 to ${MAX_SHARDS}, not '${value}'`)
  })
})
