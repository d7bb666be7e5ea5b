/**
 * Rebuilding a session from its journal yields between slices (REPLAY_KEYS_PAGE logged result
 * keys, then REPLAY_SLICE_ENTRIES entries or REPLAY_SLICE_BYTES of events, whichever first), so a large session's replay never holds the
 * event loop for long; the rebuilt session is the same as the one journaled. The yield is injected
 * and counted: nothing here depends on time.
 * Covers: src/session/session.ts.
 */
import { DatabaseSync } from 'node:sqlite'
import { describe, expect, it } from 'vitest'
import { createSessionEngine } from '../../../src/engine/session-engine.ts'
import { decodeFrameValue, isIngestIssue } from '../../../src/ingest/index.ts'
import { createResultLog } from '../../../src/session/result-log.ts'
import {
  HostedSession,
  type JournalEntry,
  REPLAY_KEYS_PAGE,
  REPLAY_SLICE_BYTES,
  REPLAY_SLICE_ENTRIES,
} from '../../../src/session/session.ts'
import { sqliteSessionRecords } from '../../../src/session/sqlite/records.ts'
import { sqlFromDatabaseSync } from '../../../src/session/sql.ts'
import { jsonBytes } from '../../../src/session/byte-budget.ts'
import { CONFIG } from '../../support/weather-fixtures.ts'

const createEngine = (o: Parameters<typeof createSessionEngine>[0]) => createSessionEngine(o)
const event = (n: number, chars: number) => {
  const decoded = decodeFrameValue({
    author: 'agent',
    invocationId: `i${n}`,
    content: { role: 'model', parts: [{ text: `${n}`.padEnd(chars, 'x') }] },
  }, n)
  if (isIngestIssue(decoded)) throw new Error(decoded.message)
  return decoded
}

/** Journals `count` events of `chars` characters, then replays them, counting the entries fed per slice. */
async function replaySlices(count: number, chars: number) {
  const records = sqliteSessionRecords(sqlFromDatabaseSync(new DatabaseSync(':memory:')))
  const spec = { session_id: 's', eval_config: CONFIG }
  records.insert(spec, 0)
  const parts = () => {
    const { results, journal } = records.storage('s')
    return { spec, log: createResultLog(results), journal, createEngine }
  }
  const opened = await HostedSession.open(parts())
  if (!opened.ok) throw new Error(opened.problem.detail)
  for (let n = 0; n < count; n++) opened.session.push(event(n, chars))

  const slices: { entries: number; bytes: number }[] = [{ entries: 0, bytes: 0 }]
  const { journal, ...rest } = parts()
  const counted = {
    append: (e: JournalEntry) => journal.append(e),
    *entries() {
      for (const entry of journal.entries()) {
        yield entry
        // Resumed: the replay has fed that entry, in the slice it is in now.
        const slice = slices.at(-1)!
        slice.entries += 1
        if (entry.op === 'event') slice.bytes += jsonBytes(entry.raw)
      }
    },
  }
  const yieldTurn = async () => void slices.push({ entries: 0, bytes: 0 })
  // A clock that stands still: slices are cut by entries and bytes only, never by how fast this machine is.
  const rebuilt = await HostedSession.open({ ...rest, journal: counted, yieldTurn, now: () => 0 })
  if (!rebuilt.ok) throw new Error(rebuilt.problem.detail)
  return { slices, original: opened.session, rebuilt: rebuilt.session }
}

describe('replay in slices', () => {
  it('many small events: a slice feeds at most REPLAY_SLICE_ENTRIES entries', async () => {
    const { slices, original, rebuilt } = await replaySlices(2_100, 50)
    // First the logged results' keys, a page per slice; then the journal.
    const keyPages = Math.floor(original.log.lastSeq() / REPLAY_KEYS_PAGE)
    expect(keyPages).toBeGreaterThan(0)
    expect(slices.slice(0, keyPages + 1).map((s) => s.entries)).toEqual([...Array<number>(keyPages).fill(0), 500])
    expect(REPLAY_SLICE_ENTRIES).toBe(500)
    expect(slices.slice(keyPages).map((s) => s.entries)).toEqual([500, 500, 500, 500, 100])
    expect(rebuilt.snapshot()).toEqual(original.snapshot())
    expect(rebuilt.recordedEvents).toBe(2_100)
  })

  it('large events: a slice stops once it fed REPLAY_SLICE_BYTES', async () => {
    const { slices, original, rebuilt } = await replaySlices(12, 200_000)
    // Two events of ~200 KB pass 256 KiB: each slice feeds two, the last what is left.
    expect(original.log.lastSeq()).toBeLessThan(REPLAY_KEYS_PAGE)
    expect(slices.map((s) => s.entries)).toEqual([2, 2, 2, 2, 2, 2])
    for (const slice of slices) expect(slice.bytes).toBeLessThan(REPLAY_SLICE_BYTES + 200_100)
    expect(rebuilt.snapshot()).toEqual(original.snapshot())
    expect(rebuilt.transcript.toJSON()).toEqual(original.transcript.toJSON())
  })
})
