/** Covers: src/core/judging/request-id.ts. */
// Judge request ids are cache keys (memory, the Durable Object's SQLite): a change of wording, of
// request shape or of hashing would make every stored answer miss. Pinned here for each judged
// criterion, with the values they had before the judge port learnt to route assessments.
import { describe, expect, it } from 'vitest'
import { Invocation } from '../../../../src/adk/invocation.ts'
import { criterionByName } from '../../../../src/core/registry.ts'

const turn = (user: string, final: string) =>
  Invocation.parse({
    invocation_id: 'inv',
    user_content: { role: 'user', parts: [{ text: user }] },
    final_response: { role: 'model', parts: [{ text: final }] },
  })

describe('judge request ids stay stable', () => {
  it.each([
    ['final_response_match_v2', 'final_response_match_v2:verdict:9e308f720cf807f2'],
    ['safety_v1', 'safety_v1:safety:0abaa3d9fb53c3d5'],
    ['rubric_based_final_response_quality_v1', 'rubric_based_final_response_quality_v1:rubrics:67fc9ca9a66a6b76'],
    ['hallucinations_v1', 'hallucinations_v1:segment-0:bc369c6d610a490f'],
  ])('%s', (name, id) => {
    const criterion = criterionByName(name)
    if (!criterion) throw new Error(`no criterion ${name}`)
    const config = criterion.config.parse({
      threshold: 0.5,
      rubrics: [{ rubric_id: 'r1', rubric_content: { text_property: 'is polite' } }],
    })
    const outcome = criterion.finish(criterion.init({ config, expected: turn('q', 'ref'), key: 's/0' }), turn('q', 'It is 4. Math is fun.'))
    expect(outcome.kind === 'judge' && outcome.requests.map((r) => r.id)).toEqual([id])
  })
})
