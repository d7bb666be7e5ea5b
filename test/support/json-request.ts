/**
 * A request to an in-process app (`app.fetch`), with a JSON body when one is given: what the
 * session tests send to the HTTP app without a server.
 * @example await app.fetch(jsonRequest('POST', '/v1/sessions', { session_id: 's' }))
 */
export function jsonRequest(method: string, path: string, body?: unknown): Request {
  return new Request(`http://local${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
}
