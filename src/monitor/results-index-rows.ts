/**
 * A result as the results index writes it (results-index.ts): one row of columns, made where the
 * result is (the main thread, which has the data's text already) and, on Node, sent to the index's
 * writer thread as flat primitives, so that thread parses and stringifies nothing.
 */
import { isRecord } from '../adk/json.ts'
import { statusFromCode } from '../adk/status.ts'
import type { FedResult } from '../session/result-feed.ts'
import { MAX_INDEXED_DATA_CHARS } from './results-index-limits.ts'

/**
 * One result as the index writes it: its session's columns, the score columns pulled out of its
 * data, and the data's text (indexedDataJson). An `invocation.started` or `criterion.progress`
 * carries its invocation index alone: the index keeps no row for them, it only moves the session's.
 */
export type IndexRow = {
  sessionId: string
  seq: number
  atMs: number
  tenant: string
  app: string
  type: string
  criterion: string | null
  invocation: number | null
  status: string | null
  score: number | null
  threshold: number | null
  /** A criterion result's revision (0: the first verdict on its invocation). */
  revision: number
  data: string
}

/** A batch of rows as one flat array, INDEX_ROW_VALUES values a row, in IndexRow's order (pushIndexRow). */
export type IndexRowValue = string | number | null
export const INDEX_ROW_VALUES = 13

/**
 * The row the index writes for a fed result. `dataJson`: the text the result's data was written
 * with elsewhere (src/session/result-json.ts), so the index need not stringify it again; when it
 * has none (undefined), the data is stringified here.
 * @example indexRowOf(fed).criterion // 'tool_trajectory_avg_score'
 */
export function indexRowOf(r: FedResult, dataJson?: (data: Record<string, unknown>) => string | undefined): IndexRow {
  const { type, data, seq } = r.event
  const row: IndexRow = {
    sessionId: r.sessionId,
    seq,
    atMs: r.atMs,
    tenant: r.tenant ?? '',
    app: r.appName ?? '',
    type,
    criterion: null,
    invocation: null,
    status: null,
    score: null,
    threshold: null,
    revision: 0,
    data: '',
  }
  if (type === 'invocation.started' || type === 'criterion.progress') {
    row.invocation = data.invocation_index
    return row
  }
  row.data = indexedDataJson(data, dataJson?.(data))
  if (type === 'case.result') {
    // ADK's file shape: the case status is its number.
    const code = data.final_eval_status
    row.status = typeof code === 'number' && Number.isFinite(code) ? statusFromCode(code) : null
  } else if (type === 'criterion.result') {
    row.criterion = data.metric_name
    row.invocation = data.invocation_index
    row.status = data.eval_status
    row.score = data.score
    row.threshold = data.threshold
    row.revision = data.revision ?? 0
  }
  return row
}

/**
 * Appends a row to a flat batch: what crosses to a writer thread, primitives only (a structured
 * clone of them costs a fraction of one of the results' objects, and the thread parses nothing).
 * @example const batch: IndexRowValue[] = []; pushIndexRow(batch, indexRowOf(fed)); index.recordRows(batch)
 */
export function pushIndexRow(out: IndexRowValue[], row: IndexRow): void {
  out.push(
    row.sessionId,
    row.seq,
    row.atMs,
    row.tenant,
    row.app,
    row.type,
    row.criterion,
    row.invocation,
    row.status,
    row.score,
    row.threshold,
    row.revision,
    row.data,
  )
}

/** The row that starts at `at` in a flat batch. */
export function readIndexRow(values: readonly IndexRowValue[], at: number): IndexRow {
  return {
    sessionId: values[at] as string,
    seq: values[at + 1] as number,
    atMs: values[at + 2] as number,
    tenant: values[at + 3] as string,
    app: values[at + 4] as string,
    type: values[at + 5] as string,
    criterion: values[at + 6] as string | null,
    invocation: values[at + 7] as number | null,
    status: values[at + 8] as string | null,
    score: values[at + 9] as number | null,
    threshold: values[at + 10] as number | null,
    revision: values[at + 11] as number,
    data: values[at + 12] as string,
  }
}

/**
 * A result's data as the index stores it: the JSON as is when short; else its scalar top-level
 * fields, a clipped rationale and a marker. Indexing a summary again gives the same summary, so a
 * writer thread may be sent the summary instead of the whole data (a case result is ~200 KB).
 * @example indexedDataJson(data, textAlreadyMade)
 */
export function indexedDataJson(data: Record<string, unknown>, json: string = JSON.stringify(data)): string {
  if (json.length <= MAX_INDEXED_DATA_CHARS) return json
  const summary: Record<string, unknown> = { truncated: true, chars: json.length }
  for (const [k, v] of Object.entries(data)) {
    if (v === null || typeof v !== 'object') {
      summary[k] = typeof v === 'string' ? v.slice(0, 1024) : v
    }
  }
  const rationale = isRecord(data.details) ? data.details.rationale : undefined
  if (typeof rationale === 'string') summary.details = { rationale: rationale.slice(0, 2048) }
  return JSON.stringify(summary)
}
