/**
 * The Node process guard: a stray promise rejection or exception (a bug somewhere, never a
 * request's fault) is logged and the server keeps serving every other session, instead of the
 * process dying with all of them. Requests are already answered by the app's onError; this is the
 * net under everything else (timers, stream callbacks, forgotten promises).
 *
 * Output that can no longer be written is dropped. When whatever reads the process's stdout or
 * stderr is gone (a pipe whose reader exited: a supervisor restarted, `| head`, a test runner that
 * died), every write fails with EPIPE, emitted as an 'error' event. Unhandled, that event is an
 * uncaught exception, whose log line fails the same way: the process spun on it at full CPU and
 * stopped answering. The streams' errors are therefore handled (the output is lost, nothing else),
 * and an error raised while one is being logged is not logged again.
 */

/**
 * @example installProcessGuard() // once, at the top of the server entry
 */
export function installProcessGuard(log: (message: string, error: unknown) => void = console.error): void {
  for (const stream of [process.stdout, process.stderr]) stream.on('error', dropOutput)
  let logging = false
  const report = (message: string, error: unknown) => {
    if (logging) return
    logging = true
    try {
      log(message, error)
    } catch {
      // The log itself failed: there is nowhere left to say so.
    } finally {
      logging = false
    }
  }
  process.on('unhandledRejection', (reason) => report('evalstream: unhandled rejection (server keeps running):', reason))
  process.on('uncaughtException', (error) => report('evalstream: uncaught exception (server keeps running):', error))
}

/** A write to stdout or stderr that failed (EPIPE, EBADF): the line is lost, the server goes on. */
function dropOutput(): void {}
