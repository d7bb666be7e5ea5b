/**
 * Where judge calls go: Gemini's backend and Vertex AI's evaluation service. src/config/judge-env.ts
 * reads it from the environment.
 */

/** Gemini calls go to the Gemini API (API key) or to Vertex AI (project + location). */
export type GeminiBackend =
  | { kind: 'gemini-api'; apiKey: string }
  | { kind: 'vertex'; project: string; location: string }

export type JudgeConfig = {
  gemini: GeminiBackend
  /** GEMINI_BASE_URL: a gateway or a local stub; passed to the SDK as httpOptions.baseUrl. */
  baseUrl?: string
  /** Vertex AI's evaluation service (safety_v1, response_evaluation_score, multi_turn_*_v1); present when a project and location are set. */
  vertexSafety?: { project: string; location: string; baseUrl?: string }
  /** GOOGLE_CLOUD_ACCESS_TOKEN: a ready OAuth token for Vertex calls (the simple case). */
  accessToken?: string
}

/** What the server prints when no judge is configured. */
export const JUDGE_NOT_CONFIGURED = 'No judge model is configured, so LLM-judged criteria will be NOT_EVALUATED. Set GEMINI_API_KEY ' +
  '(or GOOGLE_API_KEY) to use the Gemini API, or GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION ' +
  '(with GOOGLE_GENAI_USE_VERTEXAI=true) to use Vertex AI; GEMINI_BASE_URL points calls at a gateway. ' +
  'For judge_model provider/model names set that provider instead (OPENAI_API_KEY, AZURE_OPENAI_ENDPOINT, OLLAMA_HOST, ' +
  'CLOUDFLARE_ACCOUNT_ID, or EVALSTREAM_JUDGE_<PROVIDER>_BASE_URL; docs/judges.md).'

/** One line saying where judge calls go, without secrets (for the server's startup log). */
export function describeJudgeConfig(config: JudgeConfig): string {
  const g = config.gemini
  const target = g.kind === 'gemini-api' ? 'Gemini API' : `Vertex AI (${g.project}, ${g.location})`
  const via = config.baseUrl ? ` via ${config.baseUrl}` : ''
  const safety = config.vertexSafety ? '; safety_v1 via Vertex evaluateInstances' : '; safety_v1 via a Gemini prompt'
  return `judge: ${target}${via}${safety}`
}
