/**
 * The webhook SSRF filter refuses every address the IANA special-purpose registries set apart
 * (as ipaddr.js classifies them), not only the private and loopback blocks: documentation,
 * benchmarking, segment-routing and ORCHID ranges, broadcast, relays and sinks. IPv4 spellings
 * that are not dotted decimal are judged by the address they denote, whether or not a URL parser
 * normalised them first, and so are resolver answers with an IPv6 zone.
 * Covers: src/export/webhook-target.ts.
 */
import { describe, expect, it } from 'vitest'
import { privateHostProblem, webhookUrlProblem } from '../../../src/export/webhook-target.ts'

const problem = (host: string) => webhookUrlProblem(`https://${host}/hook`, { allowPrivate: false })

describe('webhook targets: special-purpose addresses', () => {
  it.each([
    ['100.64.0.1', /carrier-grade NAT/],
    ['198.18.0.1', /a reserved address/],
    ['192.0.2.1', /a reserved address/],
    ['192.88.99.1', /a reserved address/],
    ['240.0.0.1', /a reserved address/],
    ['224.0.0.1', /a multicast address/],
    ['255.255.255.255', /the broadcast address/],
    ['192.175.48.1', /special-purpose address \(as112\)/],
    ['192.52.193.1', /special-purpose address \(amt\)/],
    ['0.1.2.3', /unspecified/],
    ['[3fff::1]', /reserved or documentation address/],
    ['[2001:db8::1]', /reserved or documentation address/],
    ['[2001:2::1]', /special-purpose address \(benchmarking\)/],
    ['[2001:20::1]', /special-purpose address \(orchid2\)/],
    ['[5f00::1]', /special-purpose address \(segmentRouting\)/],
    ['[ff02::1]', /a multicast address/],
    ['[::ffff:255.255.255.255]', /the broadcast address \(IPv4-mapped carrying 255\.255\.255\.255\)/],
  ])('%s is refused', (host, why) => {
    expect(problem(host)).toMatch(why)
    expect(problem(host)).toMatch(/EVALSTREAM_WEBHOOK_ALLOW_PRIVATE=1/)
  })

  it.each(['1.1.1.1', '93.184.215.14', '[2606:4700:4700::1111]', 'hooks.example.com'])('%s (public) is allowed', (host) => {
    expect(problem(host)).toBeUndefined()
  })

  it.each([
    ['http://0x7f.1/', /127\.0\.0\.1 is a loopback address/],
    ['http://0177.0.0.1/', /127\.0\.0\.1 is a loopback address/],
    ['http://0xa9.0376.43518/', /169\.254\.169\.254 is a link-local address/],
    ['http://3232235777/', /192\.168\.1\.1 is a private address/],
  ])('%s: the URL parser normalises the spelling and the address is refused', (url, why) => {
    expect(webhookUrlProblem(url, { allowPrivate: false })).toMatch(why)
  })

  it.each([
    ['0x7f.1', /loopback/],
    ['017700000001', /loopback/],
    ['2130706433', /loopback/],
    ['0xa9fea9fe', /link-local/],
    ['[fe80::1%eth0]', /link-local/],
    ['[::ffff:127.0.0.1%1]', /loopback/],
    ['[fe80::1', /not a valid IPv6 address/],
    ['[12345::]', /not a valid IPv6 address/],
  ])('%s, handed over without a URL parser (a resolver answer), is still judged by its address', (host, why) => {
    expect(privateHostProblem(host)).toMatch(why)
  })
})
