import { existsSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { rouge1, rouge1Unigrams, StreamingRouge, unigrams } from '../../src/core/text/rouge.ts'
import { tokenize } from '../../src/core/text/tokenize.ts'

/** The shared ADK vectors: a copy in test/fixtures/vectors if the repo has one, else the team's shared folder. */
function vectors(name: string): any {
  const local = new URL(`../fixtures/vectors/${name}`, import.meta.url)
  return JSON.parse(existsSync(local) ? readFileSync(local, 'utf8') : readFileSync(`/work/shared/vectors/${name}`, 'utf8'))
}

type RougeVector = {
  id: string
  candidate: string
  reference: string
  expected: { precision: number; recall: number; fmeasure: number }
}
const ROUGE: RougeVector[] = vectors('rouge.json').rouge1_vectors

describe('rouge1 against the ADK vectors', () => {
  it('has vectors to check', () => expect(ROUGE.length).toBeGreaterThanOrEqual(12))

  it.each(ROUGE.map((v) => [v.id, v] as const))('%s', (_id, v) => {
    // Exact equality: the arithmetic follows Python's order, so the bits must agree.
    const { precision, recall, fmeasure } = v.expected
    expect(rouge1(v.candidate, v.reference)).toEqual({ precision, recall, fmeasure })
  })
})

describe('tokenize (adk mode: rouge_score)', () => {
  it.each([
    ['The dogs were running!', ['the', 'dog', 'were', 'run']],
    ['This skies dying lying', ['thi', 'sky', 'die', 'lie']],
    // Only tokens longer than 3 are stemmed: "was" stays, "does" -> "doe".
    ['was does ties', ['was', 'doe', 'tie']],
    // ASCII only: accents and CJK are separators.
    ['Café naïve', ['caf', 'na', 've']],
    ['東京は晴れです', []],
    ['  10:30, e-mail foo_bar\n3.14 ', ['10', '30', 'e', 'mail', 'foo', 'bar', '3', '14']],
    ['', []],
  ])('%j', (text, tokens) => {
    expect(tokenize(text, 'adk')).toEqual(tokens)
  })

  it('is the default mode', () => {
    expect(tokenize('東京 Running')).toEqual(['run'])
  })
})

describe("tokenize (unicode mode: evalstream's fix for non-Latin scripts)", () => {
  it.each([
    ['東京は今日晴れです。', ['東京', 'は', '今日', '晴れ', 'です']],
    ['北京今天天气晴朗', ['北京', '今天', '天气', '晴朗']],
    ['วันนี้อากาศดีมาก', ['วัน', 'นี้', 'อากาศ', 'ดี', 'มาก']],
    // Non-ASCII words are lowercased but not stemmed; ASCII words are stemmed as in adk mode.
    ['Café RUNNING Österreich', ['café', 'run', 'österreich']],
  ])('%j', (text, tokens) => {
    expect(tokenize(text, 'unicode')).toEqual(tokens)
  })

  it('scores Japanese, Chinese and Thai answers that ADK scores 0', () => {
    const cases = [
      ['東京は今日晴れです', '東京は晴れです'],
      ['北京今天天气晴朗', '北京天气晴朗'],
      ['วันนี้อากาศดีมาก', 'อากาศดีมาก'],
    ]
    for (const [candidate, reference] of cases) {
      expect(rouge1(candidate!, reference!).fmeasure).toBe(0)
      const u = rouge1(candidate!, reference!, { tokenizer: 'unicode' })
      const c = tokenize(candidate!, 'unicode').length
      const r = tokenize(reference!, 'unicode').length
      // Every reference token appears in the candidate here: recall 1, precision r / c.
      expect(u).toEqual({ precision: r / c, recall: 1, fmeasure: (2 * (r / c) * 1) / (r / c + 1) })
    }
  })

  it('gives exactly the adk tokens for ASCII text (opting in never changes an English score)', () => {
    let seed = 12345
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,:;'-_!?\n\t()/\"'@#$%&*+="
    for (let i = 0; i < 2000; i++) {
      let text = ''
      const n = Math.floor(next() * 60)
      for (let j = 0; j < n; j++) text += alphabet[Math.floor(next() * alphabet.length)]
      expect(tokenize(text, 'unicode'), JSON.stringify(text)).toEqual(tokenize(text, 'adk'))
    }
  })
})

describe('StreamingRouge', () => {
  const texts = [
    ['In Paris it is sunny, 21C, and the time is 10:30.', 'It is sunny in Paris and 21 degrees; the time is 10:30.'],
    ['The quick brown foxes were jumping over lazy dogs!', 'A quick brown fox jumps over the lazy dog.'],
    ['東京は今日晴れです。気温は21度です。', '東京は晴れ、気温21度です。'],
  ] as const

  it.each(['adk', 'unicode'] as const)('equals rouge1 on the text so far, however it is chunked (%s)', (mode) => {
    let seed = 7
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    for (const [candidate, reference] of texts) {
      const ref = unigrams(tokenize(reference, mode))
      for (let round = 0; round < 50; round++) {
        const s = new StreamingRouge(mode)
        let sent = 0
        while (sent < candidate.length) {
          const size = 1 + Math.floor(next() * 8)
          s.append(candidate.slice(sent, sent + size))
          sent = Math.min(candidate.length, sent + size)
          expect(s.score(ref)).toEqual(rouge1(candidate.slice(0, sent), reference, { tokenizer: mode }))
        }
      }
    }
  })

  it('starts over after reset', () => {
    const s = new StreamingRouge('adk')
    s.append('hello world')
    expect(s.empty).toBe(false)
    s.reset()
    expect(s.empty).toBe(true)
    s.append('hello')
    // 'world' is gone: a perfect match.
    expect(s.score(unigrams(['hello']))).toEqual({ precision: 1, recall: 1, fmeasure: 1 })
    expect(rouge1Unigrams(unigrams(['hello', 'world']), unigrams(['hello'])).precision).toBe(0.5)
  })
})
