/**
 * The environment as every reader sees it, and the one rule for whole-number settings, used by every
 * reader (what a client may send, session lifecycle, results index, proxy timeouts, exporters, the
 * judge's budgets): unset or empty keeps the default; otherwise plain digits, optionally grouped with
 * single underscores (`16_000_000`), making a safe integer within the variable's range. Anything else
 * (`1e3`, `1.5`, `0x10`, `-5`, `10MB`) is an error naming the variable and the value: a typo never
 * silently becomes the default.
 */

/** Environment variables by name, as every runtime hands them over (process.env, Deno.env, a Worker's env). */
export type Env = Record<string, string | undefined>

/** What every `*FromEnv` reader returns: the value (and start-up notes), or the error naming the variable. */
export type Read<T> = { ok: true; value: T; notes?: string[] } | { ok: false; error: string }

/** Digits, optionally in groups joined by single underscores. */
const WHOLE_NUMBER = /^[0-9]+(?:_[0-9]+)*$/

export type WholeNumberRange = { min?: number; max?: number }

/**
 * @example wholeNumber({ N: '5' }, 'N', 10) // { ok: true, value: 5 }
 * @example wholeNumber({ N: '16_000_000' }, 'N', 10) // { ok: true, value: 16000000 }
 * @example wholeNumber({ N: '0' }, 'N', 10) // { ok: false, error: "N must be a whole number >= 1, not '0'" }
 */
export function wholeNumber<D extends number | undefined = number>(
  env: Env,
  name: string,
  fallback: D,
  range: WholeNumberRange = {},
): Read<number | D> {
  const { min = 1, max } = range
  const raw = env[name]?.trim()
  if (!raw) return { ok: true, value: fallback }
  const n = WHOLE_NUMBER.test(raw) ? Number(raw.replaceAll('_', '')) : Number.NaN
  if (!Number.isSafeInteger(n) || n < min || (max !== undefined && n > max)) {
    return { ok: false, error: `${name} must be a whole number ${max === undefined ? `>= ${min}` : `from ${min} to ${max}`}, not '${raw}'` }
  }
  return { ok: true, value: n }
}

/**
 * Several at once, each by its variable, each >= 1 unless `ranges` says otherwise.
 * @example
 * wholeNumbersFromEnv({ EVALSTREAM_MAX_SESSIONS: '500' }, { maxSessions: 'EVALSTREAM_MAX_SESSIONS' }, { maxSessions: 10_000 })
 * // { ok: true, value: { maxSessions: 500 } }
 */
export function wholeNumbersFromEnv<K extends string>(
  env: Env,
  variables: Readonly<Record<K, string>>,
  defaults: Readonly<Record<K, number>>,
  ranges: Partial<Record<K, WholeNumberRange>> = {},
): Read<Record<K, number>> {
  const value = { ...defaults } as Record<K, number>
  for (const [key, name] of Object.entries(variables) as [K, string][]) {
    const read = wholeNumber(env, name, defaults[key], ranges[key])
    if (!read.ok) return read
    value[key] = read.value
  }
  return { ok: true, value }
}

/**
 * A fraction from 0 to 1 (a sampling rate): a plain decimal such as `0.25`, `1` or `.5`.
 * @example fraction({ R: '0.1' }, 'R', 1) // { ok: true, value: 0.1 }
 */
export function fraction(env: Env, name: string, fallback: number): Read<number> {
  const raw = env[name]?.trim()
  if (!raw) return { ok: true, value: fallback }
  const n = /^(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)$/.test(raw) ? Number(raw) : Number.NaN
  return n >= 0 && n <= 1 ? { ok: true, value: n } : { ok: false, error: `${name} must be a number from 0 to 1, not '${raw}'` }
}
