/**
 * Bounds checked on raw JSON text before parsing: the scan refuses exactly what the check on the
 * parsed value refuses (random values, compact and indented, strings full of escapes), names the
 * path and character offset, and a 16 MB `[[[...]]]` body is refused without `JSON.parse` ever
 * seeing it (counted with a spy, not guessed from memory use). A string of many escapes is scanned
 * once: each escape used to search for the closing quote again, to its end (escapes x length).
 */
import fc from 'fast-check'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { findJsonBoundsViolation } from '../../../src/adk/json-bounds.ts'
import { scanJsonBounds, scanJsonItems } from '../../../src/adk/json-scan.ts'
import { parseJsonWithin } from '../../../src/adk/json-within.ts'
import { createEventDecoder } from '../../../src/ingest/decoder.ts'
import { DEFAULT_LIMITS } from '../../../src/ingest/limits.ts'
import type { DecodedEvent, IngestIssue } from '../../../src/ingest/types.ts'
import { countIndexOfWork } from '../../support/indexof-work.ts'

const text = fc.string({ unit: fc.constantFrom('a', '"', '\\', '\n', 'é', '\u2028', '😀', '[', '{', '\u0000'), maxLength: 8 })
const value = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    text,
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(text, tie('v'), { maxKeys: 3 }),
  ),
})).v
const bounds = fc.record({ maxJsonDepth: fc.integer({ min: 1, max: 5 }), maxStringLength: fc.integer({ min: 0, max: 6 }) })
const spacing = fc.constantFrom(undefined, 2, '\t')

afterEach(() => {
  vi.restoreAllMocks()
})

describe('scanJsonBounds agrees with the check on the parsed value', () => {
  it('refuses exactly what findJsonBoundsViolation refuses, with the same kind', () => {
    fc.assert(
      fc.property(value, bounds, spacing, (v, b, space) => {
        const raw = JSON.stringify(v, null, space)
        const parsedCheck = findJsonBoundsViolation(JSON.parse(raw), b)
        const scanned = scanJsonBounds(raw, b)
        expect(scanned === undefined).toBe(parsedCheck === undefined)
        if (scanned && parsedCheck && scanned.kind === 'depth' && parsedCheck.kind === 'depth') {
          expect(scanned.depth).toBe(parsedCheck.depth)
        }
      }),
      { numRuns: 4000 },
    )
  })

  it('item by item: each element of a list body is judged alone, as the parsed element would be', () => {
    fc.assert(
      fc.property(fc.array(value, { maxLength: 5 }), bounds, fc.boolean(), (list, given, wrapped) => {
        // The wrapper is outside the items: its key `events` and its depth must be within the bounds.
        const b = wrapped ? { maxJsonDepth: Math.max(2, given.maxJsonDepth), maxStringLength: Math.max(6, given.maxStringLength) } : given
        const raw = JSON.stringify(wrapped ? { events: list } : list)
        const scanned = scanJsonItems(raw, b)
        expect(scanned.violation).toBeUndefined()
        expect(scanned.items).toHaveLength(list.length)
        scanned.items!.forEach((item, k) => {
          expect(JSON.parse(raw.slice(item.start, item.end))).toEqual(JSON.parse(JSON.stringify(list[k])))
          expect(item.violation === undefined).toBe(findJsonBoundsViolation(list[k], b) === undefined)
        })
      }),
      { numRuns: 2000 },
    )
  })

  it('a list body taken apart into elements is valid exactly when JSON.parse accepts it whole', () => {
    const separator = fc.constantFrom(',', ', ', ',\n', ',,', ' ', '', ':')
    const edge = fc.constantFrom('', ' ', '\n', ',', ' x', '[]', ']', '}', '"s"', ' 1')
    const loose = { maxJsonDepth: 10, maxStringLength: 100 }
    fc.assert(
      fc.property(fc.array(fc.tuple(value, separator), { maxLength: 5 }), edge, edge, (parts, inside, after) => {
        let raw = '['
        parts.forEach(([v, sep], k) => (raw += (k > 0 ? sep : '') + JSON.stringify(v)))
        raw += `${inside}]${after}`
        let whole = true
        try {
          JSON.parse(raw)
        } catch {
          whole = false
        }
        const scanned = scanJsonItems(raw, loose)
        const parsesApart = scanned.syntaxAt === undefined &&
          scanned.violation === undefined &&
          (scanned.items ?? []).every((item) => {
            try {
              JSON.parse(raw.slice(item.start, item.end))
              return true
            } catch {
              return false
            }
          })
        expect(parsesApart).toBe(whole)
      }),
      { numRuns: 4000 },
    )
  })

  it('names the path and the character where a bound broke', () => {
    const b = { maxJsonDepth: 2, maxStringLength: 3 }
    expect(scanJsonBounds('{"a":[[1]]}', b)).toEqual({ kind: 'depth', path: '$.a[0]', depth: 3, offset: 6 })
    expect(scanJsonBounds('{"a":["ok", "long"]}', b)).toEqual({ kind: 'string', path: '$.a[1]', length: 4, offset: 12 })
    expect(scanJsonBounds('{"ok":1, "long":2}', b)).toEqual({ kind: 'string', path: '$.long', length: 4, offset: 9 })
    expect(scanJsonBounds('{"x y":"a\\"b\\u00e9c"}', b)).toEqual({ kind: 'string', path: '$["x y"]', length: 5, offset: 7 })
    // Brackets inside strings are text, escaped quotes do not end a string.
    expect(scanJsonBounds('["[[[", "\\"[["]', { maxJsonDepth: 1, maxStringLength: 9 })).toBeUndefined()
    expect(scanJsonItems('[1, [[2]], "abcd"]', b).items?.map((i) => i.violation?.path)).toEqual([undefined, undefined, '$'])
    expect(scanJsonItems('[1, [[[2]]]]', b).items?.[1]?.violation).toMatchObject({ kind: 'depth', path: '$[0][0]', depth: 3, offset: 6 })
  })
})

describe('a 16 MB [[[...]]] body is refused before JSON.parse sees it', () => {
  const depth = 8 * 1024 * 1024
  const deep = '['.repeat(depth) + ']'.repeat(depth)

  /** Lengths of every text JSON.parse is given. */
  function parsedLengths(): number[] {
    const lengths: number[] = []
    const real = JSON.parse
    vi.spyOn(JSON, 'parse').mockImplementation((textArg: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
      lengths.push(textArg.length)
      return real(textArg, reviver)
    })
    return lengths
  }

  it('parseJsonWithin: a depth violation at the first bracket past the bound, nothing parsed', () => {
    const lengths = parsedLengths()
    const result = parseJsonWithin(deep, DEFAULT_LIMITS)
    expect(result).toMatchObject({
      ok: false,
      reason: 'bounds',
      violation: { kind: 'depth', depth: DEFAULT_LIMITS.maxJsonDepth + 1, offset: DEFAULT_LIMITS.maxJsonDepth },
    })
    expect(lengths).toEqual([])
  })

  it('the JSON body decoder: the deep element is an issue, its neighbour still an event, only the neighbour parsed', () => {
    const lengths = parsedLengths()
    const events: DecodedEvent[] = []
    const issues: IngestIssue[] = []
    const decoder = createEventDecoder('json', { onEvent: (e) => events.push(e), onIssue: (i) => issues.push(i) }, {
      ...DEFAULT_LIMITS,
      maxEventBytes: 64 * 1024 * 1024,
    })
    decoder.push(`[${deep}, {"author": "agent", "invocationId": "e-1"}]`)
    decoder.end()
    expect(issues).toHaveLength(1)
    expect(issues[0]).toMatchObject({ index: 0, kind: 'too_deep' })
    expect(issues[0]!.message.slice(-120)).toMatch(
      /: nested more than 100 levels deep \(EVALSTREAM_MAX_JSON_DEPTH=100\) \(at character 101\)/,
    )
    expect(events.map((e) => e.index)).toEqual([1])
    expect(Math.max(...lengths)).toBeLessThan(100)
  })
})

describe('a string of many escapes is scanned once', () => {
  for (const escape of ['\\u00e9', '\\"', '\\n']) {
    it(`200,000 ${escape} escapes in one 1 MB+ string: each character examined at most twice`, () => {
      const text = `{"appName":"${escape.repeat(200_000)}","x":"${escape}"}`
      const work = countIndexOfWork(text.length)
      expect(scanJsonBounds(text, { maxJsonDepth: 10, maxStringLength: 300_000 })).toBeUndefined()
      expect(scanJsonBounds(text, { maxJsonDepth: 10, maxStringLength: 199_999 })).toMatchObject({ kind: 'string', path: '$.appName' })
      expect(work.scanned).toBeLessThanOrEqual(2 * 2 * text.length)
    })
  }
})
