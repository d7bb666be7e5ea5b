/**
 * Whole-number settings from the environment, the one way every host setting of that kind is read
 * (session lifecycle, results index, proxy timeouts, exporters): unset or empty keeps the default;
 * anything but plain digits making a whole number >= min is an error naming the variable (a typo
 * never silently becomes the default, and `1e3` or `1.5` is not a count).
 */

export type Read<T> = { ok: true; value: T } | { ok: false; error: string }

/**
 * @example wholeNumber({ N: '5' }, 'N', 10) // { ok: true, value: 5 }
 */
export function wholeNumber(env: Record<string, string | undefined>, name: string, fallback: number, min = 1): Read<number> {
  const raw = env[name]?.trim()
  if (!raw) return { ok: true, value: fallback }
  const n = Number(raw)
  if (!/^[0-9]+$/.test(raw) || !Number.isSafeInteger(n) || n < min) return { ok: false, error: `${name} must be a whole number >= ${min}, not '${raw}'` }
  return { ok: true, value: n }
}

/**
 * Several at once, each by its variable, each >= 1.
 * @example
 * wholeNumbersFromEnv({ EVALSTREAM_MAX_SESSIONS: '500' }, { maxSessions: 'EVALSTREAM_MAX_SESSIONS' }, { maxSessions: 10_000 })
 * // { ok: true, value: { maxSessions: 500 } }
 */
export function wholeNumbersFromEnv<K extends string>(
  env: Record<string, string | undefined>,
  variables: Record<K, string>,
  defaults: Record<K, number>,
): Read<Record<K, number>> {
  const value = { ...defaults }
  for (const [key, name] of Object.entries(variables) as [K, string][]) {
    const read = wholeNumber(env, name, defaults[key])
    if (!read.ok) return read
    value[key] = read.value
  }
  return { ok: true, value }
}
