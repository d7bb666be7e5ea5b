/**
 * The two deterministic tools both e2e agents use. Lives outside agents/ because `adk api_server`
 * treats every script file directly under agents/ as an agent of its own.
 */
import { FunctionTool } from '@google/adk'
import { z } from 'zod'
import { timeReport, weatherReport } from './weather-data.ts'

const cityArgs = z.object({ city: z.string().describe('City name, e.g. Paris') })

/** `get_weather(city)`: e.g. `{ status: 'success', report: 'It is sunny and 21C in Paris.' }`. */
export const getWeather = new FunctionTool({
  name: 'get_weather',
  description: 'Returns the current weather in a city.',
  parameters: cityArgs,
  execute: ({ city }) => weatherReport(city),
})

/** `get_time(city)`: e.g. `{ status: 'success', report: 'The time in Paris is 10:30.' }`. */
export const getTime = new FunctionTool({
  name: 'get_time',
  description: 'Returns the current local time in a city.',
  parameters: cityArgs,
  execute: ({ city }) => timeReport(city),
})

export const INSTRUCTION = 'Use get_weather and get_time for the city the user names, then answer in one sentence.'
