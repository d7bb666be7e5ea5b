/**
 * How the writer thread (write-behind-worker.ts) opens its two database files, the sessions' and
 * the results index's (write-behind-index.ts). WAL, so the main thread's reads never wait
 * for it; NORMAL skips the fsync per commit that only a power loss would need (a kill -9 loses
 * nothing committed).
 *
 * Both files commit small batches often (every few ms), each rewriting the same hot pages (the newest
 * rows, each session's place in the session-keyed indexes); at SQLite's default checkpoint of
 * 1,000 WAL pages those pages were copied into the file again every few commits. At
 * WAL_CHECKPOINT_PAGES a page is copied once per many commits: measured, 13-30% less CPU per
 * indexed result (bench/results-index.bench.ts) and a fifth less for the sessions' writer under
 * bench/load.ts. A commit is in the WAL either way, so what a kill -9 keeps is the same; each WAL
 * file stays at up to ~40 MiB, and a restart reads up to that much back.
 */

/** WAL pages (4 KiB each) a writer lets grow before it copies them into the database file. */
export const WAL_CHECKPOINT_PAGES = 10_000

export const WRITER_PRAGMAS = 'PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000; ' +
  `PRAGMA wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`
