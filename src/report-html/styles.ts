/**
 * The pages' styles. Colours are chosen for contrast (WCAG AA, 4.5:1 for text), since the
 * accessibility check in the browser test fails on less; print drops the controls, keeps
 * colours that carry meaning and avoids splitting a case or a step across pages.
 */
export const BASE_STYLES = `
:root { --fg:#1b1f24; --muted:#57606a; --line:#d0d7de; --bg:#ffffff; --panel:#f6f8fa; --link:#0550ae;
  --pass-bg:#dafbe1; --pass:#116329; --fail-bg:#ffebe9; --fail:#a40e26; --err-bg:#fff1e5; --err:#953800;
  --skip-bg:#eaeef2; --skip:#424a53; --warn-bg:#fff8c5; --warn:#7d4e00; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
header, main, footer { padding: 12px 20px; }
header { border-bottom: 1px solid var(--line); background: var(--panel); }
h1 { font-size: 20px; margin: 0 0 6px; }
h2 { font-size: 16px; margin: 18px 0 8px; }
h3 { font-size: 14px; margin: 12px 0 6px; }
a { color: var(--link); }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
pre { white-space: pre-wrap; word-break: break-word; background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 8px; margin: 4px 0; max-width: 100%; overflow-x: auto; }
.muted { color: var(--muted); }
.cards { display: flex; flex-wrap: wrap; gap: 10px; margin: 8px 0; padding: 0; list-style: none; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 8px 12px; min-width: 96px; background: var(--bg); }
.card .value { display: block; font-size: 20px; font-weight: 600; }
.card .label { display: block; color: var(--muted); font-size: 12px; }
.badge { display: inline-block; padding: 0 7px; border-radius: 10px; font-size: 12px; font-weight: 600; line-height: 20px; white-space: nowrap; }
.s-passed, .s-completed, .s-finished, .s-identical { background: var(--pass-bg); color: var(--pass); }
.s-failed, .s-blocked, .s-denied, .s-diverged { background: var(--fail-bg); color: var(--fail); }
.s-error, .s-unknown_outcome, .s-expired { background: var(--err-bg); color: var(--err); }
.s-skipped, .s-pending, .s-running, .s-new, .s-info { background: var(--skip-bg); color: var(--skip); }
.s-waiting, .s-warn, .s-soft { background: var(--warn-bg); color: var(--warn); }
.controls { display: flex; flex-wrap: wrap; gap: 12px; align-items: end; margin: 8px 0 12px; }
.controls label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); gap: 2px; }
.controls select, .controls input { font: inherit; padding: 4px 6px; border: 1px solid #8c959f; border-radius: 6px; color: var(--fg); background: var(--bg); min-width: 140px; }
button { font: inherit; padding: 3px 10px; border: 1px solid #8c959f; border-radius: 6px; background: var(--panel); color: var(--fg); cursor: pointer; }
button:focus-visible, summary:focus-visible, a:focus-visible, input:focus-visible, select:focus-visible { outline: 2px solid var(--link); outline-offset: 2px; }
details { border: 1px solid var(--line); border-radius: 6px; margin: 6px 0; background: var(--bg); }
details > summary { cursor: pointer; padding: 6px 10px; display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
details > .body { padding: 4px 12px 10px; border-top: 1px solid var(--line); }
details details { margin-left: 4px; }
table { border-collapse: collapse; width: 100%; margin: 4px 0; }
th, td { text-align: left; vertical-align: top; border-bottom: 1px solid var(--line); padding: 4px 6px; }
th { font-size: 12px; color: var(--muted); font-weight: 600; }
.grow { flex: 1 1 auto; min-width: 0; overflow-wrap: anywhere; }
.chart { margin: 8px 0; max-width: 100%; }
.chart svg { display: block; max-width: 100%; height: auto; }
.turn { margin-top: 14px; padding-top: 4px; border-top: 2px solid var(--line); }
.row-note { padding: 4px 10px; margin: 4px 0; border-left: 3px solid var(--line); }
.divergent { outline: 3px solid var(--fail); background: var(--warn-bg); }
.banner { border: 1px solid var(--line); border-radius: 8px; padding: 8px 12px; margin: 8px 0; }
.banner.s-diverged { border-color: var(--fail); }
.children { margin: 6px 0 6px 12px; padding-left: 10px; border-left: 3px solid var(--line); }
.problems { margin: 4px 0; padding-left: 20px; }
button.link { border: none; background: none; padding: 0; color: var(--link); text-decoration: underline; text-align: left; }
section:empty { display: none; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
@media print {
  .controls, button, .no-print { display: none !important; }
  header { background: none; }
  body { font-size: 10pt; }
  details { break-inside: avoid; border-color: #999; }
  pre { max-height: none; border-color: #999; }
  a { color: inherit; text-decoration: none; }
  .badge { border: 1px solid currentColor; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
}
`;
