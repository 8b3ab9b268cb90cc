/**
 * Helpers both pages' scripts share, as browser JavaScript source. Every piece of data reaches
 * the document through textContent or setAttribute, never innerHTML, so no text from a run can
 * become markup. (Plain ES2017 in a string: the pages must run without a build step.)
 */
export const CLIENT_COMMON = String.raw`
var D = JSON.parse(document.getElementById("retrace-data").textContent);
function append(el, child) {
  if (child === null || child === undefined || child === false) return;
  if (Array.isArray(child)) { for (var i = 0; i < child.length; i++) append(el, child[i]); return; }
  el.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
}
function h(tag, props) {
  var el = document.createElement(tag);
  if (props) for (var key in props) {
    var value = props[key];
    if (value === null || value === undefined || value === false) continue;
    if (key === "text") el.textContent = String(value);
    else if (key === "cls") el.className = value;
    else el.setAttribute(key, value === true ? "" : String(value));
  }
  for (var i = 2; i < arguments.length; i++) append(el, arguments[i]);
  return el;
}
function badge(status, text) { return h("span", { cls: "badge s-" + status }, text || status.replace(/_/g, " ")); }
var LONG = 1200;
/** Long texts start collapsed: the first LONG characters, and a button for the rest. */
function longText(text, label) {
  text = typeof text === "string" ? text : json(text);
  var pre = h("pre", label ? { "aria-label": label } : null);
  if (text.length <= LONG) { pre.textContent = text; return pre; }
  pre.textContent = text.slice(0, LONG) + "\u2026";
  var more = h("button", { type: "button", cls: "no-print" }, "Show all " + text.length.toLocaleString("en-US") + " characters");
  more.addEventListener("click", function () { pre.textContent = text; more.remove(); });
  return h("div", null, pre, more);
}
function json(value) {
  if (value === undefined) return "(none)";
  try { return JSON.stringify(value, null, 2); } catch (e) { return String(value); }
}
function clip(text, max) {
  text = (typeof text === "string" ? text : json(text)).replace(/\s+/g, " ").trim();
  return text.length > max ? text.slice(0, max - 1) + "\u2026" : text;
}
/** A details element whose body is built the first time it opens: 10,000 closed rows cost 10,000 summaries. */
function lazyDetails(props, summary, fill) {
  var details = h("details", props);
  details.appendChild(h("summary", null, summary));
  var filled = false;
  details.retraceFill = function () {
    if (filled) return;
    filled = true;
    var body = h("div", { cls: "body" });
    fill(body);
    details.appendChild(body);
  };
  details.addEventListener("toggle", function () { if (details.open) details.retraceFill(); });
  return details;
}
function openDetails(details) { if (details.retraceFill) details.retraceFill(); details.open = true; }
function ms(value) {
  if (value === null || value === undefined) return "\u2014";
  return value < 1000 ? Math.round(value) + " ms" : (value / 1000).toFixed(2) + " s";
}
function score(value) { return value === null || value === undefined ? "\u2014" : value.toFixed(2); }
function cost(value) { return value === null || value === undefined ? "cost unknown" : "$" + value.toFixed(6); }
function tokens(usage) {
  if (!usage) return "usage unknown";
  return usage.inputTokens + " in / " + usage.outputTokens + " out" + (usage.cachedInputTokens ? " (" + usage.cachedInputTokens + " cached)" : "") + (usage.unknownCalls ? " (unknown for " + usage.unknownCalls + " call(s))" : "");
}
function field(label, value) { return h("div", null, h("span", { cls: "muted" }, label + ": "), value); }
`;
