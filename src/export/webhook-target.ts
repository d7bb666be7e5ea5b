/**
 * Whether a client-supplied webhook URL may be called (server-side request forgery): only http(s),
 * no credentials in the URL, and no loopback, private, link-local, carrier-grade NAT, multicast or
 * reserved address, nor a name that only resolves inside a network (`localhost`, `*.local`,
 * `*.internal` such as cloud metadata services, single-label names), unless the operator allows
 * private targets (EVALSTREAM_WEBHOOK_ALLOW_PRIVATE=1). The WHATWG URL parser has already turned
 * `0x7f.1` or `2130706433` into `127.0.0.1`, so the checks below see the canonical address.
 *
 * A public name that resolves to a private address is caught only where the host can resolve
 * names before sending (see `resolve` in webhook-sender.ts); docs/webhooks.md says so.
 */

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

/** Why a host name or address is internal, or undefined for a public one. */
export function privateHostProblem(hostname: string): string | undefined {
  const host = hostname.toLowerCase().replace(/\.$/, '')
  const refused = (what: string) => `its host ${host} is ${what}; set EVALSTREAM_WEBHOOK_ALLOW_PRIVATE=1 to allow internal targets`
  if (host.startsWith('[')) {
    const what = ipv6Kind(host.slice(1, -1))
    return what ? refused(what) : undefined
  }
  const v4 = parseIpv4(host)
  if (v4) {
    const what = ipv4Kind(v4)
    return what ? refused(what) : undefined
  }
  if (host === 'localhost' || INTERNAL_SUFFIXES.some((s) => host.endsWith(s))) return refused('an internal name')
  if (!host.includes('.')) return refused('a single-label name (resolved inside the network)')
  return undefined
}

function parseIpv4(host: string): number[] | undefined {
  const parts = host.split('.')
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p))) return undefined
  const bytes = parts.map(Number)
  return bytes.every((b) => b <= 255) ? bytes : undefined
}

/** What kind of non-public IPv4 address this is, or undefined for a public one. */
export function ipv4Kind([a, b, c]: number[]): string | undefined {
  if (a === 127) return 'a loopback address'
  if (a === 10 || (a === 172 && b! >= 16 && b! <= 31) || (a === 192 && b === 168)) return 'a private address'
  if (a === 169 && b === 254) return 'a link-local address (cloud metadata lives here)'
  if (a === 100 && b! >= 64 && b! <= 127) return 'a carrier-grade NAT address'
  if (a === 0) return 'an unspecified address'
  if (a! >= 224) return 'a multicast or reserved address'
  if (
    (a === 192 && b === 0 && (c === 0 || c === 2)) || (a === 198 && (b === 18 || b === 19 || (b === 51 && c === 100))) ||
    (a === 203 && b === 0 && c === 113)
  ) {
    return 'a reserved address'
  }
  return undefined
}

/** The eight 16-bit groups of an IPv6 address as the URL parser writes it (compressed, lowercase). */
function ipv6Groups(text: string): number[] | undefined {
  const halves = text.split('::')
  if (halves.length > 2) return undefined
  const read = (part: string) => (part === '' ? [] : part.split(':').map((g) => parseInt(g, 16)))
  const head = read(halves[0]!)
  const tail = halves.length === 2 ? read(halves[1]!) : []
  const fill = halves.length === 2 ? 8 - head.length - tail.length : 0
  const groups = [...head, ...Array<number>(Math.max(0, fill)).fill(0), ...tail]
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined
}

/**
 * What kind of non-public IPv6 address this is, or undefined for a public one. Every form that
 * carries an IPv4 address is judged by the address it carries, so no spelling of 169.254.169.254 or
 * 127.0.0.1 gets through: IPv4-compatible ::/96, IPv4-mapped ::ffff:0:0/96, IPv4-translated
 * ::ffff:0:0:0/96 (SIIT), NAT64 64:ff9b::/96, 6to4 2002::/16 and Teredo 2001::/32 (its client
 * address, stored inverted). The local-use NAT64 prefix 64:ff9b:1::/48 (RFC 8215) is refused whole:
 * its IPv4 address may sit at any of several offsets, and it only ever reaches an internal network.
 */
function ipv6Kind(text: string): string | undefined {
  const g = ipv6Groups(text)
  if (!g) return 'not a valid IPv6 address'
  const v4 = (hi: number, lo: number) => [hi >> 8, hi & 255, lo >> 8, lo & 255]
  const zero = (from: number, to: number) => g.slice(from, to).every((x) => x === 0)
  const carrying = (what: string, embedded: number[]) => {
    const kind = ipv4Kind(embedded)
    return kind && `${kind} (${what} carrying ${embedded.join('.')})`
  }
  if (zero(0, 7)) return g[7] === 1 ? 'a loopback address' : 'an unspecified address'
  if (zero(0, 6)) return carrying('IPv4-compatible', v4(g[6]!, g[7]!)) ?? 'an IPv4-compatible address (deprecated, ::/96)'
  if (zero(0, 5) && g[5] === 0xffff) return carrying('IPv4-mapped', v4(g[6]!, g[7]!))
  if (zero(0, 4) && g[4] === 0xffff && g[5] === 0) return carrying('IPv4-translated', v4(g[6]!, g[7]!))
  if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return carrying('NAT64', v4(g[6]!, g[7]!))
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return 'a local-use NAT64 address (64:ff9b:1::/48)'
  if (g[0] === 0x2002) return carrying('6to4', v4(g[1]!, g[2]!))
  if (g[0] === 0x2001 && g[1] === 0) return carrying('Teredo', v4(g[6]! ^ 0xffff, g[7]! ^ 0xffff))
  if ((g[0]! & 0xfe00) === 0xfc00) return 'a unique-local (private) address'
  if ((g[0]! & 0xffc0) === 0xfe80) return 'a link-local address'
  if ((g[0]! & 0xffc0) === 0xfec0) return 'a site-local address (deprecated, private)'
  if ((g[0]! & 0xff00) === 0xff00) return 'a multicast address'
  if (g[0] === 0x2001 && g[1] === 0xdb8) return 'a documentation address'
  if (g[0] === 0x100 && zero(1, 4)) return 'a discard-only address'
  return undefined
}
