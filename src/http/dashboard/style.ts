/**
 * The dashboard's stylesheet. Status colours: PASSED green, FAILED red, pending amber,
 * NOT_EVALUATED grey; colour is never the only cue (every badge also says its status in words).
 */
export const STYLE_CSS = `
:root { --pass: #1a7f37; --fail: #cf222e; --pending: #9a6700; --none: #6e7781; --line: #d0d7de; --bg: #f6f8fa;
  font-family: system-ui, -apple-system, "Segoe UI", sans-serif; font-size: 14px; color: #1f2328; }
body { margin: 0; background: #fff; }
header { display: flex; flex-wrap: wrap; gap: 12px 24px; align-items: center; padding: 10px 16px; border-bottom: 1px solid var(--line); background: var(--bg); }
header h1 { font-size: 18px; margin: 0; }
header form { display: flex; gap: 8px; align-items: center; }
input, select, button { font: inherit; padding: 3px 6px; }
main { display: grid; grid-template-columns: 300px 1fr; grid-template-areas: "list session" "list stats"; gap: 16px; padding: 16px; align-items: start; }
aside { grid-area: list; }
#session-view { grid-area: session; }
#stats-view { grid-area: stats; }
h2 { font-size: 16px; margin: 0 0 8px; } h3 { font-size: 14px; margin: 0 0 6px; }
.muted { color: var(--none); }
#notice { margin: 8px 16px; padding: 6px 10px; border: 1px solid var(--fail); color: var(--fail); border-radius: 4px; }
.sessions { list-style: none; margin: 0; padding: 0; }
.sessions li { border: 1px solid var(--line); border-radius: 6px; padding: 6px 8px; margin-bottom: 6px; }
.sessions a { color: inherit; text-decoration: none; display: block; }
.sessions li.selected { border-color: #0969da; box-shadow: 0 0 0 1px #0969da; }
.sessions .id { font-family: ui-monospace, monospace; font-size: 12px; word-break: break-all; }
aside h2 + .sessions + h2 { margin-top: 16px; }
.runs .cases { list-style: none; margin: 4px 0 0; padding: 0; font-size: 12px; }
.runs .cases li { border: 0; padding: 1px 0; margin: 0; }
.badge[data-status="RUNNING"] { background: var(--pending); }
.chips { display: flex; flex-wrap: wrap; gap: 4px; margin-top: 4px; }
.badge { display: inline-block; border-radius: 10px; padding: 0 8px; font-size: 12px; color: #fff; background: var(--none); white-space: nowrap; }
.badge[data-status="PASSED"] { background: var(--pass); }
.badge[data-status="FAILED"] { background: var(--fail); }
.badge[data-status="PENDING"], .badge[data-status="OPEN"] { background: var(--pending); }
.badge[data-status="INFORMATIONAL"] { background: #57606a; }
.badge[data-status="GONE"] { background: #24292f; }
#session-status .gone { color: #24292f; font-weight: 600; }
.columns { display: grid; grid-template-columns: 1fr 1fr; gap: 16px; }
.conversation, .scores { border: 1px solid var(--line); border-radius: 6px; padding: 8px; max-height: 70vh; overflow: auto; }
.turn { border-left: 3px solid var(--line); padding: 2px 8px; margin: 6px 0; }
.turn[data-author="user"] { border-color: #0969da; }
.turn .author { font-size: 12px; color: var(--none); }
.turn .text { white-space: pre-wrap; overflow-wrap: anywhere; }
.turn .call, .turn .response { font-family: ui-monospace, monospace; font-size: 12px; overflow-wrap: anywhere; }
.invocation { border: 1px solid var(--line); border-radius: 6px; padding: 6px 8px; margin-bottom: 8px; }
.invocation h4 { margin: 0 0 4px; font-size: 13px; }
.criterion { display: grid; grid-template-columns: 1fr auto; gap: 2px 8px; padding: 4px 0; border-top: 1px dashed var(--line); }
.criterion .name { font-family: ui-monospace, monospace; font-size: 12px; }
.criterion .why { grid-column: 1 / span 2; font-size: 12px; color: #444; white-space: pre-wrap; overflow-wrap: anywhere; }
.explain { grid-column: 1 / span 2; font-size: 12px; margin-top: 4px; }
.explain table { border-collapse: collapse; width: 100%; }
.explain th { text-align: left; font-weight: 600; color: var(--none); }
.explain td { border-top: 1px solid var(--line); padding: 2px 4px; vertical-align: top; }
.explain td.call { font-family: ui-monospace, monospace; overflow-wrap: anywhere; }
.explain tr[data-mark="match"] td.mark { color: var(--pass); }
.explain tr[data-mark="mismatch"] td.mark, .explain tr[data-mark="missing"] td.mark, .explain tr[data-mark="extra"] td.mark { color: var(--fail); }
.explain tr[data-allowed="true"] td.mark { color: var(--pending); }
.explain tr[data-divergence="true"] { background: #ffebe9; outline: 2px solid var(--fail); }
.explain tr[data-divergence="true"] td.mark { font-weight: 600; }
.explain .rationale { white-space: pre-wrap; overflow-wrap: anywhere; }
.explain ol, .explain ul { margin: 2px 0; padding-left: 20px; overflow-wrap: anywhere; }
.explain .vote { font-weight: 600; }
.explain li[data-vote="valid"] .vote, .explain li[data-verdict="yes"] .vote { color: var(--pass); }
.explain li[data-vote="invalid"] .vote, .explain li[data-verdict="no"] .vote { color: var(--fail); }
.stats { display: grid; grid-template-columns: repeat(auto-fill, minmax(320px, 1fr)); gap: 12px; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 8px; }
.card .rate { font-size: 24px; font-weight: 600; }
.bars { display: flex; align-items: flex-end; gap: 2px; height: 60px; border-bottom: 1px solid var(--line); margin: 6px 0 2px; }
.bars span { flex: 1; background: #8c959f; min-height: 1px; }
.bars.time span { background: var(--pass); }
.bars.time span[data-bad="true"] { background: var(--fail); }
.bars span[data-empty="true"] { min-height: 0; }
.rate-chart { display: grid; grid-template-columns: auto 1fr; gap: 4px; }
.rate-chart .bars { background: linear-gradient(to bottom, transparent calc(50% - 0.5px), var(--line) calc(50% - 0.5px), var(--line) calc(50% + 0.5px), transparent calc(50% + 0.5px)); }
.y-axis { display: flex; flex-direction: column; justify-content: space-between; height: 60px; margin: 6px 0 2px; font-size: 10px; color: var(--none); text-align: right; }
.axis { display: flex; justify-content: space-between; font-size: 11px; color: var(--none); }
@media (max-width: 900px) { main { grid-template-columns: 1fr; grid-template-areas: "list" "session" "stats"; } .columns { grid-template-columns: 1fr; } }
`
