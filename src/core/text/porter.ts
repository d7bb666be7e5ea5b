/**
 * The Porter stemmer (Porter 1980) in the variant NLTK calls NLTK_EXTENSIONS, its default, which is
 * the one `rouge_score` uses. Written from the published algorithm plus the documented extensions:
 * - a small table of irregular forms (`dying` -> `die`, `skies` -> `sky`, ...);
 * - words of one or two letters are only lowercased;
 * - step 1a: a four-letter `-ies` word keeps `ie` (`ties` -> `tie`);
 * - step 1b: `-ied` becomes `ie` in four-letter words and `i` otherwise;
 * - step 1c: `y` -> `i` only after a consonant that is not the first letter;
 * - step 2: `bli` -> `ble` (Porter's later revision), plus `fulli` -> `ful` and `logi` -> `log`
 *   (whose condition counts the `l` as stem); `alli` -> `al` is tried first and, when it applies,
 *   step 2 runs again on the result;
 * - the cvc test also accepts a two-letter vowel-consonant stem.
 *
 * Within a step, the first rule whose suffix matches decides: if its condition fails, the word
 * leaves the step unchanged (a shorter suffix is not tried), as in Porter's description.
 */

/** NLTK's irregular forms, looked up (case-sensitively) before any step runs. */
const IRREGULAR: ReadonlyMap<string, string> = new Map([
  ['skies', 'sky'],
  ['sky', 'sky'],
  ['dying', 'die'],
  ['lying', 'lie'],
  ['tying', 'tie'],
  ['news', 'news'],
  ['innings', 'inning'],
  ['inning', 'inning'],
  ['outings', 'outing'],
  ['outing', 'outing'],
  ['cannings', 'canning'],
  ['canning', 'canning'],
  ['howe', 'howe'],
  ['proceed', 'proceed'],
  ['exceed', 'exceed'],
  ['succeed', 'succeed'],
])

/** Porter's consonant: not a/e/i/o/u, and `y` only when it follows a vowel or starts the word. */
function isConsonant(word: string, i: number): boolean {
  const c = word[i]
  if (c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u') return false
  if (c === 'y') return i === 0 || !isConsonant(word, i - 1)
  return true
}

/** m in [C](VC)^m[V]: the number of vowel-run -> consonant-run transitions. */
function measure(stem: string): number {
  let m = 0
  let prevVowel = false
  for (let i = 0; i < stem.length; i++) {
    const consonant = isConsonant(stem, i)
    if (consonant && prevVowel) m++
    prevVowel = !consonant
  }
  return m
}

function hasVowel(stem: string): boolean {
  for (let i = 0; i < stem.length; i++) if (!isConsonant(stem, i)) return true
  return false
}

/** *d: ends in a double consonant. */
function endsDoubleConsonant(w: string): boolean {
  const n = w.length
  return n >= 2 && w[n - 1] === w[n - 2] && isConsonant(w, n - 1)
}

/** *o: ends consonant-vowel-consonant, the last not w/x/y; NLTK also accepts a two-letter "vc". */
function endsCvc(w: string): boolean {
  const n = w.length
  if (n >= 3) {
    const last = w[n - 1]
    return isConsonant(w, n - 3) && !isConsonant(w, n - 2) && isConsonant(w, n - 1) &&
      last !== 'w' && last !== 'x' && last !== 'y'
  }
  return n === 2 && !isConsonant(w, 0) && isConsonant(w, 1)
}

type Condition = (stem: string) => boolean
type Rule = readonly [suffix: string, replacement: string, condition?: Condition]

const mGt0: Condition = (s) => measure(s) > 0
const mGt1: Condition = (s) => measure(s) > 1

/** First rule whose suffix matches decides; `null` when no suffix matches at all. */
function applyFirst(word: string, rules: readonly Rule[]): string | null {
  for (const [suffix, replacement, condition] of rules) {
    if (!word.endsWith(suffix)) continue
    const stem = word.slice(0, word.length - suffix.length)
    return !condition || condition(stem) ? stem + replacement : word
  }
  return null
}

function step1a(w: string): string {
  if (w.length === 4 && w.endsWith('ies')) return w.slice(0, -1)
  return applyFirst(w, [['sses', 'ss'], ['ies', 'i'], ['ss', 'ss'], ['s', '']]) ?? w
}

function step1b(w: string): string {
  if (w.endsWith('ied')) return w.slice(0, -3) + (w.length === 4 ? 'ie' : 'i')
  if (w.endsWith('eed')) {
    const stem = w.slice(0, -3)
    return measure(stem) > 0 ? stem + 'ee' : w
  }
  const suffix = w.endsWith('ed') ? 2 : w.endsWith('ing') ? 3 : 0
  if (suffix === 0) return w
  const stem = w.slice(0, w.length - suffix)
  if (!hasVowel(stem)) return w
  if (stem.endsWith('at') || stem.endsWith('bl') || stem.endsWith('iz')) return stem + 'e'
  if (endsDoubleConsonant(stem)) {
    const last = stem[stem.length - 1]
    if (last !== 'l' && last !== 's' && last !== 'z') return stem.slice(0, -1)
  }
  if (measure(stem) === 1 && endsCvc(stem)) return stem + 'e'
  return stem
}

function step1c(w: string): string {
  if (w.endsWith('y') && w.length > 2 && isConsonant(w, w.length - 2)) return w.slice(0, -1) + 'i'
  return w
}

const STEP2: readonly Rule[] = [
  ['ational', 'ate', mGt0],
  ['tional', 'tion', mGt0],
  ['enci', 'ence', mGt0],
  ['anci', 'ance', mGt0],
  ['izer', 'ize', mGt0],
  ['bli', 'ble', mGt0],
  ['alli', 'al', mGt0],
  ['entli', 'ent', mGt0],
  ['eli', 'e', mGt0],
  ['ousli', 'ous', mGt0],
  ['ization', 'ize', mGt0],
  ['ation', 'ate', mGt0],
  ['ator', 'ate', mGt0],
  ['alism', 'al', mGt0],
  ['iveness', 'ive', mGt0],
  ['fulness', 'ful', mGt0],
  ['ousness', 'ous', mGt0],
  ['aliti', 'al', mGt0],
  ['iviti', 'ive', mGt0],
  ['biliti', 'ble', mGt0],
  ['fulli', 'ful', mGt0],
  // NLTK measures this one on the stem with its `l` kept (`eulogy` -> `eulog`, `biology` -> `biolog`).
  ['logi', 'log', (s) => measure(s + 'l') > 0],
]

function step2(w: string): string {
  if (w.endsWith('alli') && measure(w.slice(0, -4)) > 0) return step2(w.slice(0, -4) + 'al')
  return applyFirst(w, STEP2) ?? w
}

const STEP3: readonly Rule[] = [
  ['icate', 'ic', mGt0],
  ['ative', '', mGt0],
  ['alize', 'al', mGt0],
  ['iciti', 'ic', mGt0],
  ['ical', 'ic', mGt0],
  ['ful', '', mGt0],
  ['ness', '', mGt0],
]

const endsST: Condition = (s) => measure(s) > 1 && (s.endsWith('s') || s.endsWith('t'))
const STEP4: readonly Rule[] = [
  ['al', '', mGt1],
  ['ance', '', mGt1],
  ['ence', '', mGt1],
  ['er', '', mGt1],
  ['ic', '', mGt1],
  ['able', '', mGt1],
  ['ible', '', mGt1],
  ['ant', '', mGt1],
  ['ement', '', mGt1],
  ['ment', '', mGt1],
  ['ent', '', mGt1],
  ['ion', '', endsST],
  ['ou', '', mGt1],
  ['ism', '', mGt1],
  ['ate', '', mGt1],
  ['iti', '', mGt1],
  ['ous', '', mGt1],
  ['ive', '', mGt1],
  ['ize', '', mGt1],
]

function step5a(w: string): string {
  if (!w.endsWith('e')) return w
  const stem = w.slice(0, -1)
  const m = measure(stem)
  return m > 1 || (m === 1 && !endsCvc(stem)) ? stem : w
}

function step5b(w: string): string {
  return w.endsWith('ll') && measure(w.slice(0, -1)) > 1 ? w.slice(0, -1) : w
}

/**
 * Stem one word as NLTK's `PorterStemmer().stem(word)` does (default NLTK_EXTENSIONS mode).
 * Any case is accepted; the stem is lowercase, as NLTK's by default.
 * @example porterStem('running') // 'run'; porterStem('dying') // 'die'; porterStem('this') // 'thi'
 */
export function porterStem(word: string): string {
  // NLTK consults the irregular forms and the short-word rule on the word as given, and lowercases
  // only then: 'DYING' -> 'dy' (not 'die'), 'İs' -> 'i̇s' (two characters before lowercasing).
  const irregular = IRREGULAR.get(word)
  if (irregular !== undefined) return irregular
  const w = word.toLowerCase()
  if (word.length <= 2 || (word.length <= 4 && codePointLength(word) <= 2)) return w
  return SURROGATE_PAIR.test(w) ? stemByCodePoint(w) : stemBmp(w)
}

function codePointLength(s: string): number {
  let n = 0
  for (const _ of s) n++
  return n
}

const SURROGATE_PAIR = /[\uD800-\uDBFF][\uDC00-\uDFFF]/
const SURROGATE_PAIRS = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g
const PRIVATE_USE_START = 0xe000

/**
 * NLTK counts code points, JS strings count UTF-16 units, so an emoji would change the length tests.
 * Each distinct astral character stands in as a private-use character absent from the word: the
 * steps only ever ask "is it a vowel / equal to its neighbour", which the stand-in answers the same.
 */
function stemByCodePoint(w: string): string {
  const toBmp = new Map<string, string>()
  const fromBmp = new Map<string, string>()
  let next = PRIVATE_USE_START
  const bmp = w.replace(SURROGATE_PAIRS, (pair) => {
    let stand = toBmp.get(pair)
    if (stand === undefined) {
      while (w.includes(String.fromCharCode(next))) next++
      stand = String.fromCharCode(next++)
      toBmp.set(pair, stand)
      fromBmp.set(stand, pair)
    }
    return stand
  })
  let out = ''
  for (const ch of stemBmp(bmp)) out += fromBmp.get(ch) ?? ch
  return out
}

function stemBmp(w: string): string {
  let s = step1c(step1b(step1a(w)))
  s = step2(s)
  s = applyFirst(s, STEP3) ?? s
  s = applyFirst(s, STEP4) ?? s
  return step5b(step5a(s))
}
