/**
 * The end-to-end weather agent: the stock ADK Gemini model (no custom model class) with two
 * deterministic tools. Tests point GOOGLE_GEMINI_BASE_URL at the scripted stub in
 * ../../scripted-gemini.ts, so the real @google/genai HTTP path runs and nothing leaves the machine.
 */
import { FunctionTool, LlmAgent } from '@google/adk'
import { z } from 'zod'
import { timeReport, weatherReport } from '../../weather-data.ts'

const cityArgs = z.object({ city: z.string().describe('City name, e.g. Paris') })

const getWeather = new FunctionTool({
  name: 'get_weather',
  description: 'Returns the current weather in a city.',
  parameters: cityArgs,
  execute: ({ city }) => weatherReport(city),
})

const getTime = new FunctionTool({
  name: 'get_time',
  description: 'Returns the current local time in a city.',
  parameters: cityArgs,
  execute: ({ city }) => timeReport(city),
})

/** Served by `adk api_server` as app `weather_agent` (the directory name). */
export const rootAgent = new LlmAgent({
  name: 'weather_agent',
  model: 'gemini-2.5-flash',
  description: 'Answers questions about the weather and the time in a city.',
  instruction: 'Use get_weather and get_time for the city the user names, then answer in one sentence.',
  tools: [getWeather, getTime],
})
