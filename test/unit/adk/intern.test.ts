/**
 * The identifier table is bounded however many distinct names hostile input sends, keeps no long
 * string, and never changes a value (which copy is kept cannot be seen from JavaScript: the heap
 * bench measures what sharing saves).
 */
import { describe, expect, it } from 'vitest'
import { intern, internedCount, MAX_INTERNED_CHARS, MAX_INTERNED_STRINGS } from '../../../src/adk/intern.ts'
import { fastAdkEvent } from '../../../src/adk/event-fast.ts'

describe('intern', () => {
  it('returns an equal string and holds at most MAX_INTERNED_STRINGS, a new name per event or not', () => {
    for (let i = 0; i < MAX_INTERNED_STRINGS * 3 + 7; i++) {
      const name = `agent_${i}`
      expect(intern(name)).toBe(name)
      expect(internedCount()).toBeLessThanOrEqual(MAX_INTERNED_STRINGS)
    }
    expect(internedCount()).toBeGreaterThan(0)
  })

  it('does not keep a string longer than MAX_INTERNED_CHARS', () => {
    const before = internedCount()
    const long = 'x'.repeat(MAX_INTERNED_CHARS + 1)
    expect(intern(long)).toBe(long)
    expect(internedCount()).toBe(before)
  })

  it('decoded events carry the same author, invocation id and tool names as sent', () => {
    const event = fastAdkEvent({
      invocationId: 'e-a899f5c0-0a05-4e99-8149-ceda68159f27',
      author: 'weather_agent',
      branch: 'root.weather_agent',
      content: { role: 'model', parts: [{ functionCall: { id: 'c1', name: 'get_weather', args: { city: 'Paris' } } }] },
    })
    expect(event).toMatchObject({
      invocation_id: 'e-a899f5c0-0a05-4e99-8149-ceda68159f27',
      author: 'weather_agent',
      branch: 'root.weather_agent',
      content: { parts: [{ function_call: { name: 'get_weather' } }] },
    })
  })
})
