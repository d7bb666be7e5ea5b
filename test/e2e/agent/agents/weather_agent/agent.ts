/**
 * The end-to-end weather agent: the stock ADK Gemini model (no custom model class) with two
 * deterministic tools. Tests point GOOGLE_GEMINI_BASE_URL at the scripted stub in
 * ../../scripted-gemini.ts, so the real @google/genai HTTP path runs and nothing leaves the machine.
 */
import { LlmAgent } from '@google/adk'
import { getTime, getWeather, INSTRUCTION } from '../../tools.ts'

/** Served by `adk api_server` as app `weather_agent` (the directory name). */
export const rootAgent = new LlmAgent({
  name: 'weather_agent',
  model: 'gemini-2.5-flash',
  description: 'Answers questions about the weather and the time in a city.',
  instruction: INSTRUCTION,
  tools: [getWeather, getTime],
})
