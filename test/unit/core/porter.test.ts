import { readFileSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { porterStem } from '../../../src/core/text/porter.ts'

/** word<TAB>stem lines; `#` lines and the TSV header are skipped. */
function loadPairs(path: string, gzipped: boolean): Array<[string, string]> {
  const raw = readFileSync(new URL(path, import.meta.url))
  const text = (gzipped ? gunzipSync(raw) : raw).toString('utf8')
  const pairs: Array<[string, string]> = []
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#') || line === 'word\tstem') continue
    const tab = line.indexOf('\t')
    pairs.push([line.slice(0, tab), line.slice(tab + 1)])
  }
  return pairs
}

function mismatches(pairs: Array<[string, string]>): string[] {
  const out: string[] = []
  for (const [word, stem] of pairs) {
    const got = porterStem(word)
    if (got !== stem) out.push(`${word}: nltk ${stem}, ours ${got}`)
  }
  return out
}

describe('porterStem against NLTK (NLTK_EXTENSIONS)', () => {
  it('matches the 5,000 shared vector words', () => {
    const pairs = loadPairs('../../fixtures/shared/vectors/porter-nltk-sample.tsv', false)
    expect(pairs).toHaveLength(5000)
    expect(mismatches(pairs)).toEqual([])
  })

  it('matches every word of Debian wamerican, lowercased (oracle fixture)', () => {
    const pairs = loadPairs('../../fixtures/porter/wamerican-nltk.tsv.gz', true)
    expect(pairs.length).toBeGreaterThan(100_000)
    expect(mismatches(pairs)).toEqual([])
  })

  it('matches suffix-heavy pseudo-words, digits and astral characters (oracle fixture)', () => {
    const pairs = loadPairs('../../fixtures/porter/fuzz-nltk.tsv.gz', true)
    expect(pairs.length).toBeGreaterThan(60_000)
    expect(mismatches(pairs)).toEqual([])
  })

  it('matches NLTK on capitalised and upper-case words (oracle fixture)', () => {
    // NLTK looks up irregular forms and the short-word rule before lowercasing: 'DYING' -> 'dy'.
    const pairs = loadPairs('../../fixtures/porter/cased-nltk.tsv.gz', true)
    expect(pairs.length).toBeGreaterThan(20_000)
    expect(mismatches(pairs)).toEqual([])
  })

  it.each([
    ['DYING', 'dy'],
    ['Skies', 'ski'],
    ['HOWE', 'how'],
    ['İs', 'i̇s'],
    ['dying', 'die'],
    ['lying', 'lie'],
    ['skies', 'sky'],
    ['running', 'run'],
    ['this', 'thi'],
    ['ties', 'tie'],
    ['died', 'die'],
    ['cried', 'cri'],
    ['generalli', 'gener'],
    ['eulogy', 'eulog'],
    ['feed', 'feed'],
    ['agreed', 'agre'],
    ['on', 'on'],
    ['RUNNING', 'run'],
    ['Running', 'run'],
  ])('%s -> %s (NLTK extensions and special forms)', (word, stem) => {
    expect(porterStem(word)).toBe(stem)
  })

  it('counts an emoji as one character, as Python does', () => {
    // Python: len('😀s') == 2, so the word is too short to stem; in UTF-16 it is 3 units long.
    expect(porterStem('😀s')).toBe('😀s')
    expect(porterStem('a😀s')).toBe('a😀')
  })
})
