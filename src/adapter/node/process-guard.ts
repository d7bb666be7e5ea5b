/**
 * The Node process guard: a stray promise rejection or exception (a bug somewhere, never a
 * request's fault) is logged and the server keeps serving every other session, instead of the
 * process dying with all of them. Requests are already answered by the app's onError; this is the
 * net under everything else (timers, stream callbacks, forgotten promises).
 */

/**
 * @example installProcessGuard() // once, at the top of the server entry
 */
export function installProcessGuard(log: (message: string, error: unknown) => void = console.error): void {
  process.on('unhandledRejection', (reason) => log('evalstream: unhandled rejection (server keeps running):', reason))
  process.on('uncaughtException', (error) => log('evalstream: uncaught exception (server keeps running):', error))
}
