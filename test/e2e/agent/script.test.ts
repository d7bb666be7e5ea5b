/** The scripted model's decisions, without a server: every branch the e2e agents can hit. */
import { describe, expect, it } from 'vitest'
import { nextModelTurn, type ScriptContent } from './script.ts'
import { cityIn, timeReport, weatherReport } from './weather-data.ts'

const user = (text: string): ScriptContent => ({ role: 'user', parts: [{ text }] })
const call = (name: string, city: string): ScriptContent => ({ role: 'model', parts: [{ functionCall: { name, args: { city } } }] })
const result = (name: string): ScriptContent => ({ role: 'user', parts: [{ functionResponse: { name, response: {} } }] })
const answer = (text: string): ScriptContent => ({ role: 'model', parts: [{ text }] })
const paris = [user('Weather and time in Paris?'), call('get_weather', 'Paris'), result('get_weather'), call('get_time', 'Paris'), result('get_time')]

describe('nextModelTurn', () => {
  it.each<[string, ScriptContent[], unknown]>([
    ['first call of a turn', paris.slice(0, 1), { kind: 'call', name: 'get_weather', args: { city: 'Paris' } }],
    ['second call after the weather result', paris.slice(0, 3), { kind: 'call', name: 'get_time', args: { city: 'Paris' } }],
    ['answer after both results', paris, { kind: 'text', chunks: ['In Paris it is sunny, ', '21C, ', 'and the time is 10:30.'] }],
    ['a new turn ignores the previous turn’s results', [...paris, answer('…'), user('And in Tokyo?')], { kind: 'call', name: 'get_weather', args: { city: 'Tokyo' } }],
    ['an unknown city still goes to the tools', [user('Weather in Lyon?')], { kind: 'call', name: 'get_weather', args: { city: 'Lyon' } }],
    ['no city at all', [user('weather please')], { kind: 'text', chunks: ['Which city do you mean?'] }],
    ['no user text', [], { kind: 'text', chunks: ['Ask me about the weather and time in a city.'] }],
  ])('%s', (_name, contents, expected) => {
    expect(nextModelTurn(contents)).toEqual(expected)
  })
})

describe('weather data', () => {
  it('tools answer the recorded Paris facts and an error result for unknown cities', () => {
    expect(weatherReport('Paris')).toEqual({ status: 'success', report: 'It is sunny and 21C in Paris.' })
    expect(timeReport('Paris')).toEqual({ status: 'success', report: 'The time in Paris is 10:30.' })
    expect(weatherReport('Lyon').status).toBe('error')
    expect(timeReport('Lyon').status).toBe('error')
  })

  it('cityIn prefers a known city over other capitalised words', () => {
    expect(cityIn('What about Paris, Alice?')).toBe('Paris')
    expect(cityIn('And in Tokyo?')).toBe('Tokyo')
  })
})
