/**
 * Whole-number settings from the environment, the one way every host setting of that kind is read:
 * unset or empty keeps the default; anything but a whole number >= 1 is an error naming the
 * variable (a typo never silently becomes the default).
 */

/**
 * @example
 * wholeNumbersFromEnv({ EVALSTREAM_MAX_SESSIONS: '500' }, { maxSessions: 'EVALSTREAM_MAX_SESSIONS' }, { maxSessions: 10_000 })
 * // { ok: true, value: { maxSessions: 500 } }
 */
export function wholeNumbersFromEnv<K extends string>(
  env: Record<string, string | undefined>,
  variables: Record<K, string>,
  defaults: Record<K, number>,
): { ok: true; value: Record<K, number> } | { ok: false; error: string } {
  const value = { ...defaults }
  for (const [key, name] of Object.entries(variables) as [K, string][]) {
    const raw = env[name]?.trim()
    if (!raw) continue
    const n = Number(raw)
    if (!/^[0-9]+$/.test(raw) || !Number.isSafeInteger(n) || n < 1)
      return { ok: false, error: `${name} must be a whole number >= 1, not '${raw}'` }
    value[key] = n
  }
  return { ok: true, value }
}
