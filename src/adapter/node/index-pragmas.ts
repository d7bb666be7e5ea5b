/**
 * How the results index's writer thread (index-worker.ts) opens its database file. WAL, so the
 * main thread's reads never wait for it; NORMAL skips the fsync per commit that only a power loss
 * would need (a kill -9 loses nothing committed).
 *
 * The thread commits small batches often (every INDEX_FLUSH_MS), each touching the same hot pages
 * (the newest rows, each session's place in the session-keyed indexes); the default checkpoint at
 * 1,000 WAL pages copied those pages into the file again every few commits. At 10,000 pages (a WAL
 * of up to ~40 MB beside the index) a page is copied once per many commits: measured, 13-30% less
 * CPU per indexed result (bench/results-index.bench.ts).
 */
export const INDEX_WRITER_PRAGMAS = 'PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000; ' +
  'PRAGMA wal_autocheckpoint = 10000'
