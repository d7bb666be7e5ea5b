/**
 * Where a JSON text goes wrong. JSON.parse's messages differ between engines and V8 often gives no
 * position at all ("Unexpected token '}', ... is not valid JSON"), so on the error path only, this
 * small scanner walks the RFC 8259 grammar and returns the offset of the first offending character.
 */

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y
const HEX4 = /^[0-9a-fA-F]{4}$/
const ESCAPES = '"\\/bfnrt'

/**
 * The offset of the first character that makes `text` invalid JSON (`text.length` when it ends too
 * early), or null when it is valid.
 * @example jsonErrorOffset('{"a": }') // 6
 */
export function jsonErrorOffset(text: string): number | null {
  let i = 0
  const fail = (): never => {
    throw new RangeError(String(i))
  }
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++
  }
  const expect = (ch: string) => {
    if (text[i] !== ch) fail()
    i++
  }
  const string = () => {
    expect('"')
    for (;;) {
      const c = text[i]
      if (c === undefined || c < ' ') fail()
      i++
      if (c === '"') return
      if (c !== '\\') continue
      const e = text[i]
      if (e === 'u' && HEX4.test(text.slice(i + 1, i + 5))) i += 5
      else if (e !== undefined && ESCAPES.includes(e)) i++
      else fail()
    }
  }
  const value = (): void => {
    ws()
    const c = text[i]
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']'
      i++
      ws()
      if (text[i] === close) return void i++
      for (;;) {
        if (close === '}') {
          ws()
          string()
          ws()
          expect(':')
        }
        value()
        ws()
        if (text[i] === ',') i++
        else return expect(close)
      }
    }
    if (c === '"') return string()
    for (const literal of ['true', 'false', 'null']) if (text.startsWith(literal, i)) return void (i += literal.length)
    NUMBER.lastIndex = i
    if (!NUMBER.test(text)) fail()
    i = NUMBER.lastIndex
  }
  try {
    value()
    ws()
    if (i < text.length) fail()
    return null
  } catch (error) {
    if (error instanceof RangeError) return Number(error.message)
    throw error
  }
}
