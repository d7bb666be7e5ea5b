/**
 * Whether a client-supplied webhook URL may be called (server-side request forgery): only http(s),
 * no credentials in the URL, and no address outside public unicast space, nor a name that only
 * resolves inside a network (`localhost`, `*.local`, `*.internal` such as cloud metadata services,
 * single-label names), unless the operator allows private targets (EVALSTREAM_WEBHOOK_ALLOW_PRIVATE=1).
 *
 * Addresses are parsed and classified by ipaddr.js (its copy of the IANA special-purpose
 * registries; no Node built-ins, so the same on Node, Deno and Workers): anything it does not call
 * plain unicast is refused, except the IPv6 forms that carry an IPv4 address, which are judged by
 * the address they carry. The WHATWG URL parser already turns `0x7f.1` or `2130706433` into
 * `127.0.0.1`; ipaddr.js reads those spellings too where no URL parser ran first.
 *
 * A public name that resolves to a private address is caught only where the host can resolve
 * names before sending (see `resolve` in webhook-sender.ts); docs/webhooks.md says so.
 */
import ipaddr from 'ipaddr.js'

/** The longest webhook URL accepted (characters). */
export const WEBHOOK_MAX_URL_CHARS = 2048

const INTERNAL_SUFFIXES = ['.localhost', '.local', '.internal', '.home.arpa', '.lan', '.intranet']

/**
 * The reason the URL is refused, or undefined when it may be called.
 * @example webhookUrlProblem('http://127.0.0.1:9000/hook', { allowPrivate: false }) // 'its host 127.0.0.1 is a loopback address…'
 */
export function webhookUrlProblem(raw: string, policy: { allowPrivate: boolean }): string | undefined {
  if (raw.length > WEBHOOK_MAX_URL_CHARS) {
    return `it is ${raw.length} characters long; at most ${WEBHOOK_MAX_URL_CHARS} (WEBHOOK_MAX_URL_CHARS)`
  }
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return 'it is not a URL'
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `only http and https are allowed, not ${url.protocol.slice(0, -1)}`
  if (url.username || url.password) return 'credentials in the URL are not allowed (the signature authenticates the sender)'
  if (policy.allowPrivate) return undefined
  return privateHostProblem(url.hostname)
}

/** Why a host name or address (IPv6 in brackets, as in a URL) is internal, or undefined for a public one. */
export function privateHostProblem(hostname: string): string | undefined {
  const host = hostname.toLowerCase().replace(/\.$/, '')
  const refused = (what: string) => `its host ${host} is ${what}; set EVALSTREAM_WEBHOOK_ALLOW_PRIVATE=1 to allow internal targets`
  if (host.startsWith('[')) {
    const what = host.endsWith(']') ? addressKind(host.slice(1, -1)) : 'not a valid IPv6 address'
    return what ? refused(what) : undefined
  }
  if (ipaddr.IPv4.isValid(host)) {
    const what = ipv4Kind(ipaddr.IPv4.parse(host))
    return what ? refused(what) : undefined
  }
  if (host === 'localhost' || INTERNAL_SUFFIXES.some((s) => host.endsWith(s))) return refused('an internal name')
  if (!host.includes('.')) return refused('a single-label name (resolved inside the network)')
  return undefined
}

/** What kind of non-public address an IPv6 literal (zone allowed, as a resolver may return it) is, or undefined for a public one. */
function addressKind(address: string): string | undefined {
  return ipaddr.IPv6.isValid(address) ? ipv6Kind(ipaddr.IPv6.parse(address)) : 'not a valid IPv6 address'
}

const IPV4_KINDS: Record<string, string> = {
  loopback: 'a loopback address',
  private: 'a private address',
  linkLocal: 'a link-local address (cloud metadata lives here)',
  carrierGradeNat: 'a carrier-grade NAT address',
  unspecified: 'an unspecified address',
  broadcast: 'the broadcast address',
  multicast: 'a multicast address',
  reserved: 'a reserved address',
}

/** What kind of non-public IPv4 address this is, or undefined for a public one. */
function ipv4Kind(address: ipaddr.IPv4): string | undefined {
  const range = address.range()
  if (range === 'unicast') return undefined
  return IPV4_KINDS[range] ?? `a special-purpose address (${range})`
}

const IPV6_KINDS: Record<string, string> = {
  loopback: 'a loopback address',
  unspecified: 'an unspecified address',
  uniqueLocal: 'a unique-local (private) address',
  linkLocal: 'a link-local address',
  deprecatedSiteLocal: 'a site-local address (deprecated, private)',
  multicast: 'a multicast address',
  discard: 'a discard-only address',
  reserved: 'a reserved or documentation address',
}

// Prefixes ipaddr.js does not single out: IPv4-compatible ::/96 (deprecated; its /128s within
// are loopback and unspecified, classified first) and the well-known NAT64 /96 within its rfc6052 range.
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR('::/96')
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96')

/**
 * What kind of non-public IPv6 address this is, or undefined for a public one. Every form that
 * carries an IPv4 address is judged by the address it carries, so no spelling of 169.254.169.254 or
 * 127.0.0.1 gets through: IPv4-compatible ::/96, IPv4-mapped ::ffff:0:0/96, IPv4-translated
 * ::ffff:0:0:0/96 (SIIT), NAT64 64:ff9b::/96, 6to4 2002::/16 and Teredo 2001::/32 (its client
 * address, stored inverted). The local-use NAT64 prefix 64:ff9b:1::/48 (RFC 8215) is refused whole:
 * its IPv4 address may sit at any of several offsets, and it only ever reaches an internal network.
 */
function ipv6Kind(address: ipaddr.IPv6): string | undefined {
  const g = address.parts
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 255, lo >> 8, lo & 255])
  const carrying = (what: string, embedded: ipaddr.IPv4) => {
    const kind = ipv4Kind(embedded)
    return kind && `${kind} (${what} carrying ${embedded.toString()})`
  }
  const range = address.range()
  if (range === 'unicast') {
    if (!address.match(IPV4_COMPATIBLE)) return undefined
    return carrying('IPv4-compatible', v4(g[6]!, g[7]!)) ?? 'an IPv4-compatible address (deprecated, ::/96)'
  }
  if (range === 'ipv4Mapped') return carrying('IPv4-mapped', v4(g[6]!, g[7]!))
  if (range === 'rfc6145') return carrying('IPv4-translated', v4(g[6]!, g[7]!))
  if (range === 'rfc6052') {
    return address.match(NAT64_WELL_KNOWN) ? carrying('NAT64', v4(g[6]!, g[7]!)) : 'a local-use NAT64 address (64:ff9b:1::/48)'
  }
  if (range === '6to4') return carrying('6to4', v4(g[1]!, g[2]!))
  if (range === 'teredo') return carrying('Teredo', v4(g[6]! ^ 0xffff, g[7]! ^ 0xffff))
  return IPV6_KINDS[range] ?? `a special-purpose address (${range})`
}
