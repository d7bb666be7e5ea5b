/**
 * The tests' own HTTP client: fetch closes a connection it has left idle for 1 s.
 *
 * workerd closes a keep-alive connection after 5 s without a request, and Node's fetch keeps one
 * for 4 s by default: a test process slowed by a busy machine could send its next request on a
 * connection workerd had just closed, and see "other side closed" (a POST is not retried). With 1 s
 * on our side, our side always closes first unless the test's own process stalls for 4 s.
 */
import { Agent, setGlobalDispatcher } from 'undici'

/** Idle time after which the tests' fetch closes a connection, well inside workerd's 5 s. */
export const TEST_CLIENT_KEEP_ALIVE_MS = 1_000

setGlobalDispatcher(new Agent({ keepAliveTimeout: TEST_CLIENT_KEEP_ALIVE_MS, keepAliveMaxTimeout: TEST_CLIENT_KEEP_ALIVE_MS }))
