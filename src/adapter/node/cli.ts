/**
 * `evalstream COMMAND ...`: `eval` scores a recorded run, `run` runs eval sets against a live
 * agent; `evalstream --help`, `evalstream COMMAND --help`, `evalstream --version`.
 *
 * Exit codes for every command: 0 every case passed, 1 a case failed or was not evaluated (as
 * `adk eval` counts it), 2 bad input (the message says what and where). Human output goes to
 * stdout (the table) and stderr (progress, warnings); `--json` prints only the EvalSetResult.
 */
import { readFileSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import { type EvalRunInput, runEval } from './eval-command.ts'
import { writeEvalSetResultFile } from './files.ts'
import { junitXml, markdownSummary } from './ci-reports.ts'
import { paintStatuses, useColor, whileWaiting } from './terminal.ts'

export const USAGE = `usage: evalstream COMMAND [options]

commands:
  eval     score a recorded agent run (a /run_sse capture, NDJSON, JSON events or an OTLP export) against an ADK eval case
  run      run ADK eval sets against a live ADK api_server and score every event as it streams

  evalstream COMMAND --help   the options of one command
  evalstream --version        the version

Exit codes: 0 every case passed, 1 a case failed or was not evaluated, 2 bad input.`

export const EVAL_USAGE = `usage: evalstream eval EVALSET --events FILE [--config FILE] [--case ID] [--conversation ID]
                       [--out FILE] [--json] [--junit FILE] [--summary FILE]

  EVALSET          an ADK eval set: .evalset.json, legacy .test.json, or a named legacy list
  --events FILE    the recorded run: a /run_sse body (SSE), NDJSON, or a JSON array of events; or an
                   OTLP JSON export (the Collector's file exporter: one request per line), or a
                   Jaeger JSON or Tempo trace-by-id JSON export; - for stdin
  --config FILE    an ADK EvalConfig (default: test_config.json beside EVALSET, else ADK's defaults)
  --case ID        the eval case to score when the set holds several
  --conversation ID  the conversation (gen_ai.conversation.id) of an OTLP export that holds several
  --out FILE       also write an ADK EvalSetResult JSON file
  --json           print the EvalSetResult JSON instead of the table
  --junit FILE     also write JUnit XML: one test case per eval case, one failure per failed criterion
  --summary FILE   also append a Markdown summary (e.g. --summary "$GITHUB_STEP_SUMMARY")

Judged criteria need GEMINI_API_KEY (or GOOGLE_CLOUD_PROJECT + GOOGLE_CLOUD_LOCATION).
NO_COLOR=1 turns off colours on a terminal.`

/** How often `eval` says it is still waiting for the judge, in ms. */
export const JUDGE_NOTICE_MS = 10_000

class UsageError extends Error {
  readonly usage: string
  constructor(message: string, usage: string = USAGE) {
    super(message)
    this.usage = usage
  }
}

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }
  return pkg.version
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv
  if (command === '--version' || command === '-V') {
    console.log(version())
    return 0
  }
  if (command === '--help' || command === '-h' || command === 'help') {
    const topic = rest[0]
    console.log(topic === 'eval' ? EVAL_USAGE : topic === 'run' ? (await import('./run-command.ts')).RUN_USAGE : USAGE)
    return 0
  }
  if (command === undefined) {
    console.error(USAGE)
    return 2
  }
  // Loaded only for `run`: it brings the judge wiring (and the Gemini SDK) that `eval` loads lazily.
  if (command === 'run') {
    // --json output is for machines: never coloured.
    const color = !rest.includes('--json') && useColor(process.env, process.stdout.isTTY === true)
    return (await import('./run-command.ts')).runCommand(rest, {
      env: process.env,
      out: (t) => process.stdout.write(color ? paintStatuses(t) : t),
      err: (t) => process.stderr.write(t),
      isTTY: process.stderr.isTTY === true,
    })
  }
  if (command !== 'eval') throw new UsageError(`unknown command '${command}' (commands: eval, run)`)
  return evalCommand(rest)
}

async function evalCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      events: { type: 'string' },
      config: { type: 'string' },
      case: { type: 'string' },
      conversation: { type: 'string' },
      out: { type: 'string' },
      json: { type: 'boolean', default: false },
      junit: { type: 'string' },
      summary: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  })
  if (values.help) {
    console.log(EVAL_USAGE)
    return 0
  }
  if (positionals.length !== 1) throw new UsageError('give exactly one EVALSET file', EVAL_USAGE)
  if (!values.events) throw new UsageError('--events FILE is required (- reads stdin)', EVAL_USAGE)
  const input: EvalRunInput = {
    evalSetPath: positionals[0]!,
    eventsName: values.events === '-' ? '<stdin>' : values.events,
    eventsText: values.events === '-' ? await readStdin() : await readText(values.events),
    configPath: values.config,
    caseId: values.case,
    conversationId: values.conversation,
    env: process.env,
  }
  const outcome = await whileWaiting(runEval(input), {
    everyMs: JUDGE_NOTICE_MS,
    write: (t) => process.stderr.write(t),
    message: (ms) =>
      `evalstream: still scoring after ${
        Math.round(ms / 1000)
      } s: waiting for the judge (EVALSTREAM_JUDGE_DEADLINE_MS bounds each request)\n`,
  })
  if (!outcome.ok) {
    console.error(`evalstream: ${outcome.error}`)
    return 2
  }
  for (const warning of outcome.warnings) console.error(`warning: ${warning}`)
  if (values.out) await writeEvalSetResultFile(values.out, outcome.evalSetResult)
  const reported = [outcome.reported]
  if (values.junit) await writeFile(values.junit, junitXml(reported))
  if (values.summary) await writeFile(values.summary, markdownSummary(reported), { flag: 'a' })
  // --json prints exactly what --out writes: ADK's EvalSetResult file.
  const color = !values.json && useColor(process.env, process.stdout.isTTY === true)
  console.log(values.json ? outcome.evalSetResultJson : color ? paintStatuses(outcome.report) : outcome.report)
  return outcome.passed ? 0 : 1
}

async function readText(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8')
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, EVAL_USAGE)
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    if (error instanceof UsageError) console.error(`evalstream: ${error.message}\n\n${error.usage}`)
    else if ((error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`evalstream: ${(error as Error).message}\n\n${EVAL_USAGE}`)
    } else console.error(`evalstream: unexpected failure: ${error instanceof Error ? error.message : String(error)}`)
    process.exitCode = 2
  },
)
