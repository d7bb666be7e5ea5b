/**
 * The placeholder syntax of ADK's user-simulator templates (`custom_instructions`, persona texts):
 * Jinja's `{{ name }}` and `{{ name.field }}`, whitespace inside the braces optional. Only that
 * subset: a template with Jinja statements or comments (`{% ... %}`, `{# ... #}`) is refused with
 * a clear error instead of being sent to the model half-rendered. An unknown name renders as an
 * empty string, as Jinja's default `Undefined` does.
 */

/** A placeholder: a name, optionally followed by `.field` lookups. */
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*\}\}/g
/** Jinja syntax this renderer does not implement. */
const STATEMENT = /\{%|\{#/
/** Longest template accepted, in characters (a template is config, not data). */
export const MAX_TEMPLATE_CHARS = 100_000

/** What a placeholder can name: text, or an object whose fields are text (a persona). */
export type TemplateValue = string | { toString(): string; [field: string]: unknown }

/**
 * The names a template uses (the first segment of each placeholder), or why it is not usable.
 * @example templateNames('Plan: {{ conversation_plan }} {{persona.id}}') // { ok: true, names: ['conversation_plan', 'persona'] }
 */
export function templateNames(template: string): { ok: true; names: string[] } | { ok: false; error: string } {
  if (template.length > MAX_TEMPLATE_CHARS) return { ok: false, error: `the template is longer than ${MAX_TEMPLATE_CHARS} characters` }
  const statement = STATEMENT.exec(template)
  if (statement) {
    return {
      ok: false,
      error: `Jinja statements and comments ('${
        statement[0]
      }' at character ${statement.index}) are not supported; use {{ name }} placeholders only`,
    }
  }
  const names = new Set<string>()
  for (const match of template.matchAll(PLACEHOLDER)) names.add(match[1]!.split('.')[0]!)
  return { ok: true, names: [...names] }
}

/**
 * Fills every placeholder in one pass (a value that itself contains `{{ x }}` is not rendered again).
 * @example renderTemplate('Say {{ stop_signal }} when done.', { stop_signal: '</finished>' }) // 'Say </finished> when done.'
 */
export function renderTemplate(template: string, values: Readonly<Record<string, TemplateValue | undefined>>): string {
  return template.replace(PLACEHOLDER, (_, path: string) => {
    const [name, ...fields] = path.split('.')
    let value: unknown = values[name!]
    for (const field of fields) value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[field] : undefined
    return value === undefined || value === null ? '' : String(value)
  })
}
