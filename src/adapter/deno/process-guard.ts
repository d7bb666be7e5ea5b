/**
 * The Deno process guard: a stray promise rejection or uncaught exception (a bug somewhere, never a
 * request's fault) is logged and the server keeps serving every other session. Deno ends the
 * process on both unless the event's default is prevented.
 */

type GuardEvent = Event & { reason?: unknown; error?: unknown }

/**
 * @example installProcessGuard() // once, at the top of the server entry
 */
export function installProcessGuard(log: (message: string, error: unknown) => void = console.error): void {
  globalThis.addEventListener('unhandledrejection', (event: Event) => {
    event.preventDefault()
    log('evalstream: unhandled rejection (server keeps running):', (event as GuardEvent).reason)
  })
  globalThis.addEventListener('error', (event: Event) => {
    event.preventDefault()
    log('evalstream: uncaught exception (server keeps running):', (event as GuardEvent).error)
  })
}
