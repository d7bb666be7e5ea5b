/**
 * The port a server listens on (PORT), read the same on Node and Deno: unset keeps the default,
 * anything but a whole number from 0 to 65535 stops the start. And what a failed listen (the port
 * in use, no permission) is told as, so the server exits non-zero with a clear message instead of
 * logging a stray exception and lingering.
 */

/** Where the server listens when PORT is unset. */
export const DEFAULT_PORT = 8787

/**
 * @example listenPort('8080') // { ok: true, port: 8080 }
 * @example listenPort('abc') // { ok: false, error: "PORT must be a whole number from 0 to 65535, not 'abc'" }
 */
export function listenPort(raw: string | undefined): { ok: true; port: number } | { ok: false; error: string } {
  const text = raw?.trim()
  if (!text) return { ok: true, port: DEFAULT_PORT }
  const port = Number(text)
  if (!/^[0-9]{1,5}$/.test(text) || port > 65535) return { ok: false, error: `PORT must be a whole number from 0 to 65535, not '${text}'` }
  return { ok: true, port }
}

/**
 * @example listenFailure({ code: 'EADDRINUSE' }, '127.0.0.1', 8787) // 'cannot listen on 127.0.0.1:8787: the port is in use ...'
 */
export function listenFailure(error: unknown, hostname: string, port: number): string {
  const code = (error as { code?: unknown; name?: unknown } | null)?.code ?? (error as { name?: unknown } | null)?.name
  const why = code === 'EADDRINUSE' || code === 'AddrInUse'
    ? 'the port is in use (another server is listening there; stop it or set PORT)'
    : code === 'EACCES' || code === 'PermissionDenied'
    ? 'permission denied (ports below 1024 need privileges; set PORT)'
    : error instanceof Error
    ? error.message
    : String(error)
  return `cannot listen on ${hostname}:${port}: ${why}`
}

/**
 * The dashboard's address for the start-up note: the listening address, or localhost when the
 * server listens on every interface (0.0.0.0, ::), which a browser cannot open.
 */
export function dashboardUrl(hostname: string, port: number): string {
  const host = hostname === '0.0.0.0' || hostname === '::' || hostname === ''
    ? 'localhost'
    : hostname.includes(':')
    ? `[${hostname}]`
    : hostname
  return `http://${host}:${port}/`
}
