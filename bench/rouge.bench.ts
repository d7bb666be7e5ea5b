/**
 * ROUGE-1 benchmark: evalstream's rouge1 against a rouge_score-equivalent Python scorer with NLTK's
 * Porter stemmer, on the same 10,000 answer pairs, and a check that every F-measure is identical.
 *
 * Run: npx node bench/rouge.bench.ts   (PYTHON=/path/to/python3 picks the interpreter; it needs nltk)
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { porterStem } from '../src/core/text/porter.ts'
import { rouge1 } from '../src/core/text/rouge.ts'
import { seededRandom as prng } from '../test/support/prng.ts'

const PAIRS = Number(process.env.PAIRS ?? 10_000)
const WARM_PASSES = 5
const SEED = 20_260_522

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

// Roughly by frequency: function words first, then the content words agent answers are made of,
// with the inflections (-s, -ed, -ing, -ation, -ness, -ly, ...) the stemmer has to undo.
const VOCABULARY = `the to of and a in is it you that for on are with as be this was your have or
can will at by not from we an if but all they more has there which their about one so would when what
also should may these been were our how then than only its into some other any each most could just
here such like time because both after before while where between through during without within
weather temperature forecast today tomorrow sunny cloudy raining rain showers degrees celsius wind
humidity evening morning afternoon city paris london tokyo berlin local current currently expected
order orders ordered ordering shipping shipped delivery delivered package packages tracking number
account accounts password reset resetting email emails sent sending received address update updated
updating payment payments refund refunds refunded processing processed invoice invoices balance
booking booked reservation reservations flight flights hotel hotels available availability room
rooms check checked checking confirm confirmed confirmation cancel cancelled cancellation policy
policies customer customers support service services request requested requests response responses
information details detail specific specifically recommend recommended recommendation options option
price prices pricing cost costs total totals discount discounts offer offers subscription plan plans
feature features configuration configured settings setting enable enabled disable disabled version
installation installed install running run runs error errors issue issues problem problems solution
solutions happy happiness helpful usefulness please thanks thank sorry unfortunately additionally
however therefore generally usually quickly easily carefully completely relational conditional
organization organizations operational effectiveness electricity connection connections connected
agreement agreed agreeing studies studying studied argued arguing universities university national
nationally hopeful hopefulness sensitivity sensitive adjustable adjustment adjustments dependent
dependency activate activated activation formalize formalized rational rationality digitization
tools tool calls called calling weather_report get_weather lookup searched searching found finding
minutes hours days weeks months year years open opening opened closed closing store stores nearest`
  .split(/\s+/)
  .filter(Boolean)

const NUMBERS = ['21C', '10:30', '$45.99', '2', '3', '15', '100', '2026', '7.5%', '#4821', 'v2.0']

function answerGenerator(random: () => number) {
  // Zipf-like: word i is drawn with weight 1 / (i + 1).
  const cumulative: number[] = []
  let sum = 0
  for (let i = 0; i < VOCABULARY.length; i++) cumulative.push(sum += 1 / (i + 1))
  const word = (): string => {
    if (random() < 0.04) return NUMBERS[Math.floor(random() * NUMBERS.length)]!
    const x = random() * sum
    let lo = 0
    let hi = cumulative.length - 1
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (cumulative[mid]! < x) lo = mid + 1
      else hi = mid
    }
    return VOCABULARY[lo]!
  }
  const render = (words: string[]): string => {
    let out = ''
    let sentenceStart = true
    for (const w of words) {
      out += (out ? ' ' : '') + (sentenceStart ? w[0]!.toUpperCase() + w.slice(1) : w)
      sentenceStart = false
      const r = random()
      if (r < 0.08) (out += '.'), (sentenceStart = true)
      else if (r < 0.14) out += ','
    }
    return out + '.'
  }
  return (): [string, string] => {
    const length = 10 + Math.floor(random() * 71)
    const reference = Array.from({ length }, word)
    let candidate: string[]
    if (random() < 0.2) candidate = Array.from({ length: 10 + Math.floor(random() * 71) }, word)
    else {
      // A paraphrase: mostly the reference's words, some replaced, dropped or added.
      candidate = []
      for (const w of reference) {
        const r = random()
        if (r < 0.7) candidate.push(w)
        else if (r < 0.8) candidate.push(word())
        else if (r < 0.9) candidate.push(w, word())
      }
      while (candidate.length < 10) candidate.push(word())
      candidate = candidate.slice(0, 80)
    }
    return [render(candidate), render(reference)]
  }
}

/**
 * Heap in use once full collections stop freeing anything. Objects behind WeakRefs (the module
 * loader holds some) stay alive until the current job ends, so each round yields to the event loop.
 */
async function settledHeap(): Promise<number> {
  let used = Number.POSITIVE_INFINITY
  for (let i = 0; i < 10; i++) {
    await new Promise((resolve) => setImmediate(resolve))
    gc()
    const now = process.memoryUsage().heapUsed
    if (now >= used) return now
    used = now
  }
  return used
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

function findPython(): string {
  for (const candidate of [process.env.PYTHON, 'python3', '/usr/bin/python3']) {
    if (!candidate) continue
    if (spawnSync(candidate, ['-c', 'import nltk'], { encoding: 'utf8' }).status === 0) return candidate
  }
  throw new Error('no python3 with nltk found (apt-get install -y python3-nltk, or set PYTHON)')
}

async function main(): Promise<void> {
  const next = answerGenerator(prng(SEED))
  // Through JSON so the texts are flat strings, not the ropes `+=` builds: scoring would flatten
  // them in place and the heap would shrink mid-measurement.
  const pairs = JSON.parse(JSON.stringify(Array.from({ length: PAIRS }, next))) as Array<[string, string]>
  const chars = pairs.reduce((n, [c, r]) => n + c.length + r.length, 0)

  const heapBefore = await settledHeap()
  const rssBeforeScoring = process.resourceUsage().maxRSS * 1024
  let t = performance.now()
  const ours = pairs.map(([c, r]) => rouge1(c, r).fmeasure)
  const coldMs = performance.now() - t
  const warm: number[] = []
  for (let pass = 0; pass < WARM_PASSES; pass++) {
    t = performance.now()
    for (const [c, r] of pairs) rouge1(c, r)
    warm.push(performance.now() - t)
  }
  const heapAfter = await settledHeap()
  const rssAfterScoring = process.resourceUsage().maxRSS * 1024
  t = performance.now()
  for (const [c, r] of pairs) rouge1(c, r, { tokenizer: 'unicode' })
  const unicodeMs = performance.now() - t
  const words = pairs.flatMap(([c, r]) => `${c} ${r}`.toLowerCase().split(/[^a-z0-9]+/).filter((t) => t.length > 3))
  t = performance.now()
  for (const w of words) porterStem(w)
  const stemMs = performance.now() - t

  const dir = mkdtempSync(join(tmpdir(), 'rouge-bench-'))
  const file = join(dir, 'pairs.json')
  writeFileSync(file, JSON.stringify(pairs))
  const python = findPython()
  const py = spawnSync(python, [join(import.meta.dirname, 'rouge_nltk.py'), file], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
  rmSync(dir, { recursive: true, force: true })
  if (py.status !== 0) throw new Error(`${python} failed: ${py.stderr}`)
  const out = JSON.parse(py.stdout) as {
    python: string
    nltk: string
    score_seconds: number
    stem_seconds: number
    stemmed_words: number
    max_rss_bytes: number
    fmeasures: number[]
  }

  let mismatches = 0
  for (let i = 0; i < PAIRS; i++) if (!Object.is(ours[i], out.fmeasures[i])) mismatches++
  const warmMs = median(warm)
  const pyMs = out.score_seconds * 1000
  console.log(`node ${process.version}; python ${out.python}, nltk ${out.nltk}`)
  console.log(
    `${PAIRS.toLocaleString('en')} pairs, ${(chars / 1e6).toFixed(2)} M chars, ${
      words.length.toLocaleString('en')
    } tokens longer than 3 (python counted ${out.stemmed_words.toLocaleString('en')})`,
  )
  console.log(`F-measure mismatches (bitwise): ${mismatches} of ${PAIRS}; mean F ${(ours.reduce((a, b) => a + b, 0) / PAIRS).toFixed(4)}`)
  console.log(`ours rouge1, first pass (stem memo filling): ${coldMs.toFixed(1)} ms (${(coldMs * 1000 / PAIRS).toFixed(1)} us/pair)`)
  console.log(
    `ours rouge1, warm: median ${warmMs.toFixed(1)} ms of ${WARM_PASSES} passes (min ${Math.min(...warm).toFixed(1)}) = ${
      (warmMs * 1000 / PAIRS).toFixed(1)
    } us/pair`,
  )
  console.log(
    `python rouge1 (nltk stemmer): ${pyMs.toFixed(1)} ms (${(pyMs * 1000 / PAIRS).toFixed(1)} us/pair); ours is ${
      (pyMs / warmMs).toFixed(1)
    }x faster warm, ${(pyMs / coldMs).toFixed(1)}x cold`,
  )
  console.log(
    `stemmer alone, no memo: ours ${stemMs.toFixed(1)} ms, nltk ${(out.stem_seconds * 1000).toFixed(1)} ms (${
      (out.stem_seconds * 1000 / stemMs).toFixed(1)
    }x)`,
  )
  console.log(
    `ours rouge1 with tokenizer 'unicode' (Intl.Segmenter), warm, one pass: ${unicodeMs.toFixed(1)} ms (${
      (unicodeMs * 1000 / PAIRS).toFixed(1)
    } us/pair)`,
  )
  console.log(
    `memory: node heap ${mb(heapBefore)} with the pairs loaded, ${
      mb(heapAfter)
    } after scoring (stem memo and results retained); node peak RSS ${mb(rssBeforeScoring)} with the pairs generated, ${
      mb(rssAfterScoring)
    } after the 6 scoring passes, ${mb(process.resourceUsage().maxRSS * 1024)} at the end; python peak RSS ${mb(out.max_rss_bytes)}`,
  )
  if (mismatches > 0) process.exitCode = 1
}

await main()
