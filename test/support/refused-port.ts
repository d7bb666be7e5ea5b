/**
 * A loopback origin that refuses every connection, for tests of an agent or judge that is down.
 *
 * Port 2 is privileged and outside Linux's ephemeral range (32768-60999), from which every test
 * server listening on port 0 is given its port, so no test process can be listening there; and
 * unlike port 1 it is not on fetch's list of blocked ports, so the connection is really tried. A port
 * that was bound and then closed is not safe: a server of a test running in parallel can be given
 * the same port a moment later, accept the connection, and the "refused" call then waits for an
 * answer that never comes.
 */
export const REFUSED_ORIGIN = 'http://127.0.0.1:2'
