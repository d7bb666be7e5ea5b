/** A tool call as trajectory matching sees it, and how calls are compared (trajectory.ts, call-key.ts). */
/** A tool call as ADK compares it. `id` is carried but never compared; `args` absent is Python None. */
export type ToolCall = { name: string; args?: Record<string, unknown> | null; id?: string | null }
export const MATCH_TYPES = ['EXACT', 'IN_ORDER', 'ANY_ORDER'] as const
export type MatchType = (typeof MATCH_TYPES)[number]
export type MatchOptions = { ignoreArgs?: boolean }
