/**
 * `evalstream eval EVALSET --events FILE [--config FILE] [--case ID] [--conversation ID] [--out FILE] [--json]`
 *
 * Scores a recorded agent run against an ADK eval case with the same engine the live service
 * uses, so a CI run and a live session give the same scores. Exit codes: 0 every case passed,
 * 1 a case failed or was not evaluated (as `adk eval` counts it), 2 bad input.
 */
import { readFile } from 'node:fs/promises'
import { basename } from 'node:path'
import { parseArgs } from 'node:util'
import { runEval, type EvalRunInput } from './eval-command.ts'
import { writeEvalSetResultFile } from './files.ts'

const USAGE = `usage: evalstream eval EVALSET --events FILE [--config FILE] [--case ID] [--conversation ID] [--out FILE] [--json]

  EVALSET         an ADK eval set: .evalset.json, legacy .test.json, or a named legacy list
  --events FILE   the recorded run: a /run_sse body (SSE), NDJSON, or a JSON array of events; or an
                  OTLP JSON export (the Collector's file exporter: one request per line); - for stdin
  --config FILE   an ADK EvalConfig (default: test_config.json beside EVALSET, else ADK's defaults)
  --case ID       the eval case to score when the set holds several
  --conversation ID  the conversation (gen_ai.conversation.id) of an OTLP export that holds several
  --out FILE      also write an ADK EvalSetResult JSON file
  --json          print the EvalSetResult JSON instead of the table

Judged criteria need GEMINI_API_KEY (or GOOGLE_CLOUD_PROJECT + GOOGLE_CLOUD_LOCATION).`

class UsageError extends Error {}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv
  if (command === undefined || command === '--help' || command === '-h') {
    console.log(USAGE)
    return command === undefined ? 2 : 0
  }
  // Loaded only for `run`: it brings the judge wiring (and the Gemini SDK) that `eval` loads lazily.
  if (command === 'run') return (await import('./run-command.ts')).runCommand(rest, { env: process.env, out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t), isTTY: process.stderr.isTTY === true })
  if (command !== 'eval') throw new UsageError(`unknown command '${command}'`)
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      events: { type: 'string' },
      config: { type: 'string' },
      case: { type: 'string' },
      conversation: { type: 'string' },
      out: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  })
  if (positionals.length !== 1) throw new UsageError('give exactly one EVALSET file')
  if (!values.events) throw new UsageError('--events FILE is required (- reads stdin)')
  const input: EvalRunInput = {
    evalSetPath: positionals[0]!,
    eventsName: values.events === '-' ? '<stdin>' : basename(values.events),
    eventsText: values.events === '-' ? await readStdin() : await readText(values.events),
    configPath: values.config,
    caseId: values.case,
    conversationId: values.conversation,
    env: process.env,
  }
  const outcome = await runEval(input)
  if (!outcome.ok) {
    console.error(`evalstream: ${outcome.error}`)
    return 2
  }
  for (const warning of outcome.warnings) console.error(`warning: ${warning}`)
  if (values.out) await writeEvalSetResultFile(values.out, outcome.evalSetResult)
  // --json prints exactly what --out writes: ADK's EvalSetResult file.
  console.log(values.json ? outcome.evalSetResultJson : outcome.report)
  return outcome.passed ? 0 : 1
}

async function readText(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8')
  } catch (error) {
    throw new UsageError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`)
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
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`evalstream: ${(error as Error).message}\n\n${USAGE}`)
    } else {
      console.error(`evalstream: unexpected failure: ${error instanceof Error ? error.message : String(error)}`)
    }
    process.exitCode = 2
  },
)
