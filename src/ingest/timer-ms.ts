/**
 * The longest delay a timer can hold. setTimeout, setInterval and AbortSignal.timeout store the
 * delay as a signed 32-bit number of milliseconds: anything above 2^31-1 (about 24.8 days) is
 * taken as 1 ms and fires at once. Every time limit that comes from configuration or a client is
 * held to this ceiling and refused past it, never passed on to become ~1 ms.
 */
export const MAX_TIMER_MS = 2 ** 31 - 1
