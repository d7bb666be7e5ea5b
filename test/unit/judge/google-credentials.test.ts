/**
 * Google credentials without an SDK: the service account's JWT is a valid RS256 signature over
 * the claims Google's token endpoint requires; the exchanged token is reused until a minute before
 * it expires (an injected clock, no waiting), concurrent callers share one exchange, and a failed
 * exchange is a clear error.
 */
import { describe, expect, it } from 'vitest'
import { testSigningKey } from './vertex-stub.ts'
import { googleCredentialsFromEnv } from '../../../src/config/judge-env.ts'
import { authHeaders, parseServiceAccount, signedAssertion } from '../../../src/judge/google-credentials.ts'

const part = (s: string) => Buffer.from(s.replace(/-/g, '+').replace(/_/g, '/'), 'base64')

describe('service account credentials', () => {
  it('signs RS256 over iss, scope, aud (the token_uri), iat and exp = iat + 3600', async () => {
    const { publicKey, pem } = await testSigningKey()
    const jwt = await signedAssertion({
      client_email: 'sa@p.iam.gserviceaccount.com',
      private_key: pem,
      token_uri: 'https://t.example/token',
    }, 1_700_000_000_500)
    const [h, c, sig] = jwt.split('.') as [string, string, string]
    expect(JSON.parse(part(h).toString())).toEqual({ alg: 'RS256', typ: 'JWT' })
    expect(JSON.parse(part(c).toString())).toEqual({
      iss: 'sa@p.iam.gserviceaccount.com',
      scope: 'https://www.googleapis.com/auth/cloud-platform',
      aud: 'https://t.example/token',
      iat: 1_700_000_000,
      exp: 1_700_003_600,
    })
    expect(await crypto.subtle.verify('RSASSA-PKCS1-v1_5', publicKey, part(sig), new TextEncoder().encode(`${h}.${c}`))).toBe(true)
  })

  it('reuses the token until a minute before it expires; concurrent calls share one exchange', async () => {
    const { pem } = await testSigningKey()
    let now = 1_000_000
    const exchanges: string[] = []
    const fakeFetch = (async (_url: string, init: RequestInit) => {
      exchanges.push(new URLSearchParams(String(init.body)).get('grant_type') ?? '')
      return new Response(JSON.stringify({ access_token: `tok-${exchanges.length}`, expires_in: 3600 }), { status: 200 })
    }) as unknown as typeof fetch
    const auth = authHeaders({ kind: 'service-account', key: { client_email: 'a@b', private_key: pem, token_uri: 'https://t/token' } }, {
      fetch: fakeFetch,
      now: () => now,
    })
    expect(await Promise.all([auth(), auth(), auth()])).toEqual(Array(3).fill({ authorization: 'Bearer tok-1' }))
    now += 3_539_000 // 59 min after: still valid
    expect(await auth()).toEqual({ authorization: 'Bearer tok-1' })
    now += 2_000 // less than a minute left: renewed
    expect(await auth()).toEqual({ authorization: 'Bearer tok-2' })
    expect(exchanges).toEqual(['urn:ietf:params:oauth:grant-type:jwt-bearer', 'urn:ietf:params:oauth:grant-type:jwt-bearer'])
  })

  it('a refused exchange rejects with the status and body', async () => {
    const { pem } = await testSigningKey()
    const fakeFetch = (async () => new Response('{"error":"invalid_grant"}', { status: 400 })) as unknown as typeof fetch
    const auth = authHeaders({ kind: 'service-account', key: { client_email: 'a@b', private_key: pem, token_uri: 'https://t/token' } }, {
      fetch: fakeFetch,
    })
    await expect(auth()).rejects.toThrow('service account token exchange failed (400): {"error":"invalid_grant"}')
  })

  it('env: service account first, then a token, then an API key; bad JSON named', () => {
    expect(googleCredentialsFromEnv({ GOOGLE_CLOUD_ACCESS_TOKEN: 't', GOOGLE_API_KEY: 'k' })).toEqual({ kind: 'access-token', token: 't' })
    expect(googleCredentialsFromEnv({ GOOGLE_API_KEY: 'k' })).toEqual({ kind: 'api-key', apiKey: 'k' })
    expect(googleCredentialsFromEnv({})).toBeNull()
    expect(googleCredentialsFromEnv({ GOOGLE_SERVICE_ACCOUNT_JSON: 'nope' })).toBe('GOOGLE_SERVICE_ACCOUNT_JSON is not JSON')
    expect(parseServiceAccount('{"private_key":"x"}')).toBe('GOOGLE_SERVICE_ACCOUNT_JSON has no client_email')
  })
})
