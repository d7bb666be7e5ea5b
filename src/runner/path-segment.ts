/**
 * A name that becomes one segment of a path on the agent (`/apps/{app}/users/{user}/sessions/{id}`).
 * encodeURIComponent leaves `.` and `..` as they are, and URL parsing then resolves them (as it does
 * `%2e%2e`), so an app or user named `..` would reach another path on the agent. Such names are
 * refused; every other string is safe once encoded.
 */

/** Why `value` cannot name a path segment on the agent, or undefined when it can. */
export function pathSegmentProblem(field: string, value: string): string | undefined {
  if (value === '') return `${field} must not be empty`
  if (value === '.' || value === '..') {
    return `${field} '${value}' is a relative path segment; it cannot name an app, user or session on the agent`
  }
  return undefined
}
