// Types of install-lock.js (plain JavaScript so the machine's older Node can run setup-e2e.js).
export const INSTALL_LOCK_TIMEOUT_MS: number
export const INSTALL_LOCK_POLL_MS: number
export function pidIsAlive(pid: number): boolean
export function sleepSync(ms: number): void
export interface InstallLockOptions {
  pid?: number
  isAlive?: (pid: number) => boolean
  now?: () => number
  sleep?: (ms: number) => void
  timeoutMs?: number
  pollMs?: number
  log?: (line: string) => void
}
export function acquireInstallLock(path: string, options?: InstallLockOptions): () => void
