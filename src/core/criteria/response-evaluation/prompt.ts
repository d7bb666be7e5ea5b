/**
 * evalstream's own coherence prompt for response_evaluation_score, used only when the operator opts
 * in and Vertex is not configured. Vertex's coherence rubric lives in a file ADK's SDK downloads
 * and that was not read, so this asks the same question (how coherent is the response, 1-5) in our
 * words; results are labelled `judge: "evalstream"`.
 */
export { SCORE_ANSWER_SCHEMA } from '../vertex-multi-turn/prompt.ts'

const SYSTEM =
  `You rate the coherence of an AI agent's response to a user: how well its ideas are organised and connected, whether it reads as one logical whole, and whether it stays consistent with itself and on the user's question.
Use this scale:
5 - completely coherent: every part follows from the last and serves the answer.
4 - mostly coherent: small jumps or a little redundancy.
3 - somewhat coherent: the main line is clear but parts are out of order, repeated or loosely connected.
2 - mostly incoherent: hard to follow, with contradictions or unrelated parts.
1 - incoherent: no logical structure.
The reference answer shows what a good answer contains; judge the response's coherence, not whether it matches the reference word for word.
Reply with JSON only: {"explanation": "<why>", "score": <integer from 1 to 5>}.`

/**
 * @example coherencePrompt('q', 'a', 'r').prompt.includes('<response>') // true
 */
export function coherencePrompt(userText: string, response: string, reference: string): { systemInstruction: string; prompt: string } {
  const prompt = `<user_prompt>
${userText}
</user_prompt>

<reference>
${reference}
</reference>

<response>
${response}
</response>`
  return { systemInstruction: SYSTEM, prompt }
}
