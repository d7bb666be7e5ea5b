/**
 * Sessions with equal configs share one read-only list of metric plans (a thousand sessions of
 * one eval set used to plan it a thousand times, 1.4 KiB each); a config with a problem is
 * reported every time, never kept; configs differing in any way, or named differently in
 * problems, plan apart.
 * Covers: src/engine/plan.ts.
 */
import { describe, expect, it } from 'vitest'
import { planSession } from '../../../src/engine/plan.ts'

const config = (threshold: number) => ({ criteria: { tool_trajectory_avg_score: threshold, response_match_score: 0.8 } })

describe('shared metric plans', () => {
  it('equal configs share one frozen list; a different one gets its own', () => {
    const a = planSession({ eval_config: config(0.93) })
    const b = planSession({ eval_config: JSON.parse(JSON.stringify(config(0.93))) })
    const c = planSession({ eval_config: config(0.92) })
    if (!a.ok || !b.ok || !c.ok) throw new Error('planned')
    expect(b.plan.metrics).toBe(a.plan.metrics)
    expect(Object.isFrozen(a.plan.metrics)).toBe(true)
    expect(c.plan.metrics).not.toBe(a.plan.metrics)
    expect(c.plan.metrics.find((m) => m.metric.metric_name === 'tool_trajectory_avg_score')?.metric.threshold).toBe(0.92)
  })

  it('a config with a problem is refused every time, naming where it came from', () => {
    const bad = { criteria: { tool_trajectory_avg_score: { threshold: 1, match_type: 'SIDEWAYS' } } }
    for (const source of ['eval_config', 'eval_config', 'test_config.json']) {
      const planned = planSession({ eval_config: bad }, undefined, { configSource: source })
      expect(planned.ok).toBe(false)
      if (!planned.ok) expect(planned.problem.detail).toContain(source)
    }
  })
})
