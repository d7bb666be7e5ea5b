/** The servers' listening port and the dashboard address their start-up note gives. */
import { describe, expect, it } from 'vitest'
import { dashboardUrl, listenPort } from '../../../src/adapter/listen-port.ts'

describe('dashboardUrl', () => {
  it('is the listening address, and localhost for every interface (a browser cannot open 0.0.0.0)', () => {
    expect(dashboardUrl('127.0.0.1', 8787)).toBe('http://127.0.0.1:8787/')
    expect(dashboardUrl('0.0.0.0', 8787)).toBe('http://localhost:8787/')
    expect(dashboardUrl('::', 9000)).toBe('http://localhost:9000/')
    expect(dashboardUrl('::1', 9000)).toBe('http://[::1]:9000/')
    expect(dashboardUrl('evals.internal', 80)).toBe('http://evals.internal:80/')
  })
})

describe('listenPort', () => {
  it('takes 0-65535 and names PORT otherwise', () => {
    expect(listenPort(undefined)).toEqual({ ok: true, port: 8787 })
    expect(listenPort('0')).toEqual({ ok: true, port: 0 })
    expect(listenPort('abc')).toEqual({ ok: false, error: "PORT must be a whole number from 0 to 65535, not 'abc'" })
    expect(listenPort('65536')).toEqual({ ok: false, error: "PORT must be a whole number from 0 to 65535, not '65536'" })
  })
})
