import { CLIENT_COMMON } from "./client-common.js";

/** The eval report page's script: the case list from the embedded report, and its filters. */
export const REPORT_SCRIPT = CLIENT_COMMON + String.raw`
(function () {
  var report = D.report, links = D.links || {};
  var list = document.getElementById("cases");
  var shown = document.getElementById("shown");
  var note = document.getElementById("filtered-by");
  var controls = { status: document.getElementById("f-status"), tag: document.getElementById("f-tag"), file: document.getElementById("f-file"), text: document.getElementById("f-text") };

  function timeline(runId) {
    if (!runId) return h("span", { cls: "muted" }, "no run");
    if (links[runId]) return h("a", { href: links[runId] }, "Timeline of run " + runId);
    if (report.runStore) return h("span", null, "Timeline: ", h("code", null, "retrace view " + runId + " --db " + report.runStore));
    return h("span", { cls: "muted" }, "run " + runId + ": the report names no run store (under --mock, keep runs with --keep-runs <file.db>; then retrace view " + runId + " --db <file.db>)");
  }

  function assertions(items) {
    if (!items.length) return h("p", { cls: "muted" }, "No assertions.");
    var rows = items.map(function (a) {
      return h("tr", null,
        h("td", null, badge(a.status)),
        h("td", null, a.label, a.severity === "soft" ? [" ", badge("soft", "soft")] : null),
        h("td", { cls: "mono" }, a.scorer),
        h("td", null, score(a.value)),
        h("td", { cls: "grow" }, longText(a.reason)));
    });
    return h("table", null, h("thead", null, h("tr", null, h("th", { scope: "col" }, "Status"), h("th", { scope: "col" }, "Assertion"), h("th", { scope: "col" }, "Scorer"), h("th", { scope: "col" }, "Score"), h("th", { scope: "col" }, "Reason"))), h("tbody", null, rows));
  }

  function attempt(c, a) {
    var parts = [];
    if (c.attempts.length > 1) parts.push(h("h3", null, "Attempt " + a.attempt + " ", badge(a.status), " score " + score(a.score) + ", " + ms(a.durationMs)));
    parts.push(assertions(a.assertions));
    if (a.errors.length) parts.push(h("h4", null, "Errors"), h("ul", { cls: "errors" }, a.errors.map(function (e) { return h("li", null, longText(e)); })));
    if (a.notes.length) parts.push(h("h4", null, "Notes"), h("ul", null, a.notes.map(function (n) { return h("li", null, n); })));
    if (a.run) {
      parts.push(h("h4", null, "Run"), h("div", null, badge(a.run.status), " " + a.run.turns + " turn(s), " + a.run.steps + " step(s), " + a.run.toolCalls + " tool call(s), " + tokens(a.run.usage) + " tokens, " + cost(a.run.cost)));
      if (a.run.error) parts.push(field("error", a.run.error.code + ": " + a.run.error.message));
      if (a.run.output) parts.push(field("answer", longText(a.run.output, "answer")));
    }
    parts.push(h("p", null, timeline(a.runId)));
    if (a.judgeRuns.length) parts.push(h("p", null, "Judge runs: ", a.judgeRuns.map(function (id, i) { return [i ? ", " : "", timeline(id)]; })));
    return parts;
  }

  var items = report.cases.map(function (c, index) {
    var duration = c.attempts.reduce(function (total, a) { return total + a.durationMs; }, 0);
    var summary = [badge(c.status), c.flaky ? badge("waiting", "flaky") : null,
      h("strong", { cls: "grow" }, c.name),
      h("span", { cls: "muted" }, c.file),
      c.tags.map(function (t) { return h("span", { cls: "badge s-info" }, t); }),
      h("span", null, "score " + score(c.score) + (c.threshold ? " (needs " + score(c.threshold) + ")" : "")),
      h("span", { cls: "muted" }, ms(duration))];
    var el = lazyDetails({ id: "case-" + index, cls: "case", "data-status": c.status }, summary, function (body) {
      if (c.attempts.length === 0) body.appendChild(h("p", { cls: "muted" }, c.status === "skipped" ? "Not run." : "No attempt ran."));
      c.attempts.forEach(function (a) { append(body, attempt(c, a)); });
    });
    list.appendChild(el);
    var text = [c.id, c.tags.join(" ")].concat(c.attempts.map(function (a) {
      return [a.errors.join(" "), a.notes.join(" "), a.run ? a.run.output : "", a.assertions.map(function (x) { return x.label + " " + x.reason + " " + x.scorer; }).join(" ")].join(" ");
    })).join(" ").toLowerCase();
    return { c: c, el: el, text: text };
  });

  function matches(item) {
    var status = controls.status.value, tag = controls.tag.value, file = controls.file.value, text = controls.text.value.trim().toLowerCase();
    var c = item.c;
    if (status === "not-passed" ? c.status === "passed" : status === "flaky" ? !c.flaky : status && c.status !== status) return false;
    if (tag && c.tags.indexOf(tag) < 0) return false;
    if (file && c.file !== file) return false;
    if (text && text.split(/\s+/).some(function (word) { return item.text.indexOf(word) < 0; })) return false;
    return true;
  }
  function apply() {
    var count = 0;
    items.forEach(function (item) { var ok = matches(item); item.el.hidden = !ok; if (ok) count++; });
    shown.textContent = "Showing " + count + " of " + items.length + " case(s)";
    // On paper the controls are gone: say what the list was filtered by.
    var by = [];
    if (controls.status.value) by.push("status " + controls.status.value);
    if (controls.tag.value) by.push("tag " + controls.tag.value);
    if (controls.file.value) by.push("file " + controls.file.value);
    if (controls.text.value.trim()) by.push("text \u201c" + controls.text.value.trim() + "\u201d");
    note.textContent = by.length ? "filtered by " + by.join(", ") : "";
  }
  ["status", "tag", "file"].forEach(function (name) { controls[name].addEventListener("change", apply); });
  controls.text.addEventListener("input", apply);
  // A link to report.html#status=failed opens with that filter.
  var wanted = /(?:^#|&)status=([a-z-]+)/.exec(location.hash);
  if (wanted) controls.status.value = wanted[1];
  apply();
  window.addEventListener("beforeprint", function () { items.forEach(function (item) { if (!item.el.hidden) openDetails(item.el); }); });
  document.documentElement.setAttribute("data-ready-ms", String(Math.round(performance.now())));
})();
`;
