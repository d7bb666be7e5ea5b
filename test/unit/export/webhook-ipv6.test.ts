/**
 * The webhook SSRF filter judges every IPv6 form that carries an IPv4 address by the address it
 * carries, in every spelling the URL parser accepts, so the metadata address 169.254.169.254 and
 * loopback stay out whichever way they are written; public addresses in the same forms still pass.
 * Covers: src/export/webhook-target.ts.
 */
import { describe, expect, it } from 'vitest'
import { webhookUrlProblem } from '../../../src/export/webhook-target.ts'

const problem = (host: string) => webhookUrlProblem(`https://${host}/hook`, { allowPrivate: false })

describe('webhook targets: IPv6 forms that embed an IPv4 address', () => {
  it.each([
    ['[64:ff9b:1::a9fe:a9fe]', /local-use NAT64/],
    ['[64:ff9b::a9fe:a9fe]', /a link-local address .*\(NAT64 carrying 169\.254\.169\.254\)/],
    ['[64:ff9b::169.254.169.254]', /\(NAT64 carrying 169\.254\.169\.254\)/],
    ['[2002:a9fe:a9fe::1]', /a link-local address .*\(6to4 carrying 169\.254\.169\.254\)/],
    ['[2002:7f00:1::]', /a loopback address \(6to4 carrying 127\.0\.0\.1\)/],
    ['[::ffff:0:a9fe:a9fe]', /\(IPv4-translated carrying 169\.254\.169\.254\)/],
    ['[::ffff:0:127.0.0.1]', /a loopback address \(IPv4-translated carrying 127\.0\.0\.1\)/],
    ['[::ffff:a9fe:a9fe]', /\(IPv4-mapped carrying 169\.254\.169\.254\)/],
    ['[::ffff:10.0.0.1]', /a private address \(IPv4-mapped carrying 10\.0\.0\.1\)/],
    ['[::127.0.0.1]', /a loopback address \(IPv4-compatible carrying 127\.0\.0\.1\)/],
    ['[::a9fe:a9fe]', /\(IPv4-compatible carrying 169\.254\.169\.254\)/],
    ['[::8.8.8.8]', /IPv4-compatible address \(deprecated/],
    ['[2001:0:4136:e378:8000:63bf:80ff:fffe]', /a loopback address \(Teredo carrying 127\.0\.0\.1\)/],
    ['[::1]', /loopback/],
    ['[::]', /unspecified/],
    ['[fd00::1]', /unique-local/],
    ['[fe80::1]', /link-local/],
    ['[fec0::1]', /site-local/],
    ['[100::1]', /discard-only/],
  ])('%s is refused', (host, why) => {
    expect(problem(host)).toMatch(why)
    expect(problem(host)).toMatch(/EVALSTREAM_WEBHOOK_ALLOW_PRIVATE=1/)
  })

  it.each(['[2002:808:808::1]', '[64:ff9b::8.8.8.8]', '[::ffff:8.8.8.8]', '[2606:4700::1111]', '[2001:4860:4860::8888]'])(
    '%s (a public address, or one that embeds a public IPv4 address) is allowed',
    (host) => expect(problem(host)).toBeUndefined(),
  )

  it('EVALSTREAM_WEBHOOK_ALLOW_PRIVATE lets them through', () => {
    expect(webhookUrlProblem('https://[::a9fe:a9fe]/hook', { allowPrivate: true })).toBeUndefined()
  })
})
