import { CLIENT_COMMON } from "./client-common.js";

/**
 * The timeline page's script. Rows are drawn in batches as the reader scrolls (the first batch
 * at once), and a row's body only when it is opened, so a 10,000-event run opens as fast as
 * a short one; printing draws every row first.
 */
export const TIMELINE_SCRIPT = CLIENT_COMMON + String.raw`
(function () {
  var M = D.model, runs = M.runs, verdict = D.verdict;
  var BATCH = 150;
  var views = [];

  function messagesOf(run, index) {
    var chain = [];
    for (var i = index; i !== null && i !== undefined; i = run.rows[i].msgs.from) chain.push(run.rows[i]);
    var out = [];
    for (var j = chain.length - 1; j >= 0; j--) {
      var m = chain[j].msgs;
      out.splice(m.keep, m.skip || 0);
      out.length = m.keep + (m.take || 0);
      for (var k = 0; k < m.add.length; k++) out.push(m.add[k]);
    }
    return out;
  }

  function message(m) {
    var head = [badge("info", m.role)];
    if (m.role === "tool") head.push(" " + m.name + " " + m.toolCallId, m.isError ? [" ", badge("failed", "error")] : null);
    var parts = [h("div", null, head), m.content ? longText(m.content) : null];
    if (m.toolCalls && m.toolCalls.length) parts.push(m.toolCalls.map(function (c) { return h("div", { cls: "mono" }, c.name + "(" + clip(c.arguments, 300) + ") " + c.id); }));
    return h("li", null, parts);
  }

  function section(title, count, fill) {
    return lazyDetails({ cls: "part" }, [h("span", null, title), count === null ? null : h("span", { cls: "muted" }, "(" + count + ")")], fill);
  }

  function modelRow(run, row, index) {
    var r = row.response, calls = r ? r.toolCalls.map(function (c) { return c.name; }).join(", ") : "";
    var summary = [
      row.failed ? badge("failed", "model call failed") : r ? badge("info", "model call") : badge("running", "model call"),
      h("span", { cls: "grow" }, "step " + row.step + (row.attempt > 1 ? " attempt " + row.attempt : "") + (r ? " \u2192 " + r.stopReason + (calls ? " [" + calls + "]" : "") + (r.text ? " \u201c" + clip(r.text, 90) + "\u201d" : "") : row.failed ? ": " + row.failed.kind + ": " + clip(row.failed.message, 90) : row.interrupted ? ": interrupted (the process stopped during the call)" : " (no answer recorded)")),
      h("span", { cls: "muted" }, r ? tokens(r.usage) : ""),
      h("span", { cls: "muted" }, cost(row.cost)),
      h("span", { cls: "muted" }, ms(row.durationMs)),
    ];
    return lazyDetails({ cls: "model" }, summary, function (body) {
      var tools = M.toolSets[row.tools] || [];
      var messages = messagesOf(run, index);
      body.appendChild(h("h4", null, "Request"));
      body.appendChild(h("div", { cls: "mono" }, "model " + row.params.model + (row.params.temperature !== undefined ? ", temperature " + row.params.temperature : "") + (row.params.maxTokens !== undefined ? ", max tokens " + row.params.maxTokens : "") + (row.params.seed !== undefined ? ", seed " + row.params.seed : "") + ", key " + row.key));
      if (row.sys !== undefined) body.appendChild(section("System prompt", null, function (b) { b.appendChild(longText(M.systems[row.sys])); }));
      body.appendChild(section("Messages", messages.length, function (b) { b.appendChild(h("ol", null, messages.map(message))); }));
      body.appendChild(section("Tool definitions", tools.length, function (b) {
        b.appendChild(h("ul", null, tools.map(function (t) { return h("li", null, h("strong", null, t.name), " \u2014 " + t.description, longText(json(t.parameters))); })));
      }));
      body.appendChild(h("h4", null, "Response"));
      if (r) {
        body.appendChild(field("stop reason", r.stopReason));
        body.appendChild(field("usage", tokens(r.usage) + ", " + cost(row.cost) + ", " + ms(row.durationMs)));
        if (r.text) body.appendChild(longText(r.text, "answer"));
        r.toolCalls.forEach(function (c) { body.appendChild(h("div", null, h("strong", null, c.name), " " + c.id, longText(c.arguments))); });
      } else if (row.failed) {
        body.appendChild(field("error", row.failed.code + " (" + row.failed.kind + (row.failed.status ? ", HTTP " + row.failed.status : "") + "): " + row.failed.message));
        body.appendChild(field("next", row.failed.retryInMs === null ? "gave up" : "retry in " + row.failed.retryInMs + " ms"));
      } else body.appendChild(h("p", { cls: "muted" }, "No response was recorded."));
    });
  }

  function approvalText(a) {
    if (a.kind === "requested") return "approval requested from " + (a.roles && a.roles.length ? a.roles.join(" + ") : "anyone") + (a.deadline ? ", until " + new Date(a.deadline).toISOString() : "");
    if (a.kind === "granted") return "approved as " + a.role + (a.by ? " by " + a.by : "");
    if (a.kind === "denied") return "denied as " + a.role + (a.by ? " by " + a.by : "") + ": " + a.reason;
    return "approval expired: " + a.reason;
  }
  var APPROVAL_STATUS = { requested: "waiting", granted: "passed", denied: "denied", expired: "expired" };

  function firing(f) { return h("div", { cls: "row-note" }, badge(f.action === "block" ? "blocked" : f.action === "warn" ? "warn" : "info", "guardrail " + f.action), " " + f.direction + " \u00b7 " + f.rule + ": " + f.detail); }

  function chunks(list) {
    if (!list.length) return h("p", { cls: "muted" }, "No chunk retrieved.");
    return h("table", null, h("thead", null, h("tr", null, h("th", { scope: "col" }, "Rank"), h("th", { scope: "col" }, "Chunk"), h("th", { scope: "col" }, "Source"), h("th", { scope: "col" }, "Score"), h("th", { scope: "col" }, "Text"))),
      h("tbody", null, list.map(function (c) { return h("tr", null, h("td", null, c.rank), h("td", { cls: "mono" }, c.id), h("td", null, c.source, c.title ? h("div", { cls: "muted" }, c.title) : null, c.headings && c.headings.length ? h("div", { cls: "muted" }, c.headings.join(" \u203a ")) : null), h("td", null, c.score.toFixed(3)), h("td", { cls: "grow" }, longText(c.text))); })));
  }

  function toolRow(run, row) {
    var summary = [badge(row.status), h("strong", null, row.name),
      h("span", { cls: "grow mono" }, "(" + clip(row.rawArgs !== undefined ? row.rawArgs : row.args, 100) + ")" + (row.status === "finished" ? " \u2192 " + clip(row.result, 80) : row.error ? " \u2192 " + row.error.kind + ": " + clip(row.error.message, 80) : row.blocked ? " \u2192 " + row.blocked.reason : "")),
      row.approvals.length ? badge(APPROVAL_STATUS[row.approvals[row.approvals.length - 1].kind], row.approvals[row.approvals.length - 1].kind) : null,
      row.guardrails.length ? badge("warn", row.guardrails.length + " guardrail") : null,
      row.retrievals.length ? badge("info", row.retrievals.reduce(function (n, x) { return n + x.chunks.length; }, 0) + " chunk(s)") : null,
      row.child !== undefined ? badge("info", "child run") : null,
      h("span", { cls: "muted mono" }, row.callId)];
    return lazyDetails({ cls: "tool" }, summary, function (body) {
      body.appendChild(h("h4", null, "Arguments"));
      body.appendChild(row.rawArgs !== undefined ? h("div", null, h("p", null, badge("failed", "not valid JSON")), longText(row.rawArgs)) : longText(json(row.args)));
      if (row.status === "finished") { body.appendChild(h("h4", null, "Result")); body.appendChild(longText(row.result)); }
      if (row.error) { body.appendChild(h("h4", null, "Error")); body.appendChild(field(row.error.kind, row.error.message)); }
      if (row.blocked) { body.appendChild(h("h4", null, "Blocked")); body.appendChild(field(row.blocked.reason.replace(/_/g, " "), row.blocked.detail)); }
      if (row.unknown) { body.appendChild(h("h4", null, "Outcome unknown")); body.appendChild(h("p", null, row.unknown)); }
      if (row.approvals.length) { body.appendChild(h("h4", null, "Approvals")); row.approvals.forEach(function (a) { body.appendChild(h("div", { cls: "row-note" }, badge(APPROVAL_STATUS[a.kind], a.kind), " " + approvalText(a))); }); }
      if (row.guardrails.length) { body.appendChild(h("h4", null, "Guardrails")); row.guardrails.forEach(function (f) { body.appendChild(firing(f)); }); }
      row.retrievals.forEach(function (x) { body.appendChild(h("h4", null, "Retrieved by " + (x.tool || "the agent") + " for \u201c" + clip(x.query, 120) + "\u201d")); body.appendChild(chunks(x.chunks)); });
      if (row.child !== undefined) {
        var box = h("div", { cls: "children", role: "group", "aria-label": "child run " + runs[row.child].runId });
        body.appendChild(box);
        renderRun(row.child, box);
      }
    });
  }

  function plainRow(row) {
    switch (row.k) {
      case "turn": return h("div", { cls: "turn" }, h("h3", null, "Turn " + row.turn, row.blocked ? [" ", badge("blocked", "blocked by a guardrail")] : null), longText(row.content, "user message"));
      case "started": return lazyDetails({ cls: "started" }, [badge("info", "run started"), h("span", { cls: "grow" }, "seed " + row.seed)], function (body) { body.appendChild(longText(json(row.config), "configuration")); if (row.source) body.appendChild(field("source", json(row.source))); });
      case "guardrail": return firing(row.firing);
      case "approval": return h("div", { cls: "row-note" }, badge(APPROVAL_STATUS[row.approval.kind], row.approval.kind), " " + row.callId + ": " + approvalText(row.approval));
      case "retrieval": return lazyDetails({ cls: "retrieval" }, [badge("info", row.mode === "augment" ? "retrieval before the model call" : "retrieval"), h("span", { cls: "grow" }, (row.tool ? row.tool + " " : "") + "\u201c" + clip(row.query, 100) + "\u201d"), h("span", { cls: "muted" }, row.chunks.length + " chunk(s)")], function (body) { body.appendChild(chunks(row.chunks)); });
      case "paused": return h("div", { cls: "row-note" }, badge("waiting", "paused"), " " + row.reason.replace(/_/g, " ") + ": " + row.pending.map(function (p) { return p.tool + " " + p.callId + (p.roles.length ? " (needs " + p.roles.join(" + ") + ")" : "") + (p.runId ? " in " + p.runId : ""); }).join(", "));
      case "resumed": return h("div", { cls: "row-note" }, badge("info", "resumed"));
      case "finished": return h("div", { cls: "row-note" }, h("div", null, badge(row.status, "run " + row.status), " " + row.steps + " step(s), " + tokens(row.usage) + " tokens, " + cost(row.cost)), row.error ? field("error", row.error.code + ": " + row.error.message) : null, row.output ? longText(row.output, "final answer") : null);
    }
    return h("div", null, row.k);
  }

  function rowElement(runIndex, index) {
    var run = runs[runIndex], row = run.rows[index];
    var el = row.k === "model" ? modelRow(run, row, index) : row.k === "tool" ? toolRow(run, row) : plainRow(row);
    var seq = row.seqs.length ? row.seqs[0] : 0;
    el.id = "r" + runIndex + "-" + index;
    el.setAttribute("data-kind", row.k);
    el.setAttribute("data-seq", String(seq));
    var tag = el.querySelector("summary") || el.firstChild;
    if (tag && row.seqs.length) tag.appendChild(h("span", { cls: "muted mono" }, " #" + row.seqs.join(",#").slice(0, 40)));
    return el;
  }

  function renderRun(runIndex, container) {
    var run = runs[runIndex];
    if (runIndex > 0) container.appendChild(h("p", null, h("strong", null, "Child run " + run.runId), " \u00b7 agent " + run.agent + " \u00b7 " + run.model + " \u00b7 ", badge(run.status), " \u00b7 " + run.steps + " step(s), " + tokens(run.usage) + " tokens, " + cost(run.cost)));
    var list = h("div", { cls: "rows" });
    container.appendChild(list);
    var view = { drawn: 0, list: list, more: null };
    views[runIndex] = view;
    view.ensure = function (upTo) {
      var end = Math.min(run.rows.length, Math.max(upTo + 1, view.drawn + BATCH));
      var fragment = document.createDocumentFragment();
      for (var i = view.drawn; i < end; i++) fragment.appendChild(rowElement(runIndex, i));
      view.drawn = end;
      list.appendChild(fragment);
      if (view.more) { view.more.remove(); view.more = null; }
      if (view.drawn < run.rows.length) {
        var button = h("button", { type: "button", cls: "more no-print" }, "Show more (" + (run.rows.length - view.drawn) + " row(s) left)");
        button.addEventListener("click", function () { view.ensure(0); });
        view.more = button;
        list.after(button);
        if (observer) observer.observe(button);
      }
    };
    view.ensure(0);
  }

  var observer = typeof IntersectionObserver === "function" ? new IntersectionObserver(function (entries) {
    entries.forEach(function (entry) { if (entry.isIntersecting) { observer.unobserve(entry.target); entry.target.click(); } });
  }, { rootMargin: "800px" }) : null;

  function reveal(runIndex, rowIndex) {
    var run = runs[runIndex];
    if (!views[runIndex] && run.parent) {
      for (var p = 0; p < runs.length; p++) {
        var at = runs[p].rows.findIndex(function (row) { return row.k === "tool" && row.child === runIndex; });
        if (at >= 0) { var holder = reveal(p, at); if (holder) openDetails(holder); break; }
      }
    }
    var view = views[runIndex];
    if (!view) return null;
    if (rowIndex >= view.drawn) view.ensure(rowIndex);
    return document.getElementById("r" + runIndex + "-" + rowIndex);
  }

  renderRun(0, document.getElementById("timeline"));

  /** What someone investigating a run looks for first, wherever it is in 10,000 rows. */
  function problemOf(row) {
    if (row.k === "model" && row.failed) return "model call failed: " + row.failed.kind;
    if (row.k === "tool" && (row.status === "failed" || row.status === "blocked" || row.status === "unknown_outcome")) return row.name + " " + row.status.replace(/_/g, " ") + (row.blocked ? " (" + row.blocked.reason.replace(/_/g, " ") + ")" : row.error ? " (" + row.error.kind.replace(/_/g, " ") + ")" : "");
    if (row.k === "tool" && row.guardrails.some(function (f) { return f.action === "block"; })) return row.name + ": guardrail block";
    if (row.k === "guardrail" && row.firing.action === "block") return "guardrail block: " + row.firing.rule;
    if (row.k === "finished" && row.status === "failed") return "run failed" + (row.error ? ": " + row.error.code : "");
    return null;
  }
  function jump(runIndex, rowIndex) {
    var target = reveal(runIndex, rowIndex);
    if (!target) return;
    if (target.tagName === "DETAILS") openDetails(target);
    target.scrollIntoView({ block: "center" });
    var focusable = target.querySelector("summary") || target;
    if (!focusable.hasAttribute("tabindex") && focusable.tagName !== "SUMMARY") focusable.setAttribute("tabindex", "-1");
    focusable.focus();
  }
  var problems = [];
  runs.forEach(function (run, runIndex) {
    run.rows.forEach(function (row, rowIndex) { var what = problemOf(row); if (what) problems.push({ run: runIndex, row: rowIndex, what: what, seq: row.seqs[0] }); });
  });
  var box = document.getElementById("problems");
  if (box && problems.length) {
    var SHOWN = 50;
    box.appendChild(h("h2", { id: "problems-title" }, "Problems (" + problems.length + ")"));
    box.appendChild(h("ul", { cls: "problems" }, problems.slice(0, SHOWN).map(function (p) {
      var button = h("button", { type: "button", cls: "link" }, p.what + (p.run > 0 ? " in " + runs[p.run].runId : "") + " \u00b7 #" + p.seq);
      button.addEventListener("click", function () { jump(p.run, p.row); });
      return h("li", null, button);
    })));
    if (problems.length > SHOWN) box.appendChild(h("p", { cls: "muted" }, (problems.length - SHOWN) + " more not listed."));
  }

  var d = verdict && verdict.divergence;
  if (d) {
    var runIndex = Math.max(0, runs.findIndex(function (run) { return run.runId === d.runId; }));
    var rows = runs[runIndex].rows;
    var rowIndex = rows.findIndex(function (row) { return row.seqs.indexOf(d.seq) >= 0; });
    if (rowIndex < 0) rowIndex = rows.findIndex(function (row) { return row.seqs.length && row.seqs[0] >= d.seq; });
    if (rowIndex < 0) rowIndex = rows.length - 1;
    var target = rowIndex >= 0 ? reveal(runIndex, rowIndex) : null;
    if (target) {
      target.classList.add("divergent");
      if (target.tagName === "DETAILS") openDetails(target);
      var here = h("p", { cls: "banner s-diverged" }, badge("diverged", "diverged here"), " " + d.reason + " \u2014 ", h("a", { href: "#verdict-title" }, "see the request diff"));
      var body = target.querySelector(".body");
      if (body) body.insertBefore(here, body.firstChild); else target.appendChild(here);
      target.setAttribute("aria-label", "divergent event " + d.seq);
      var go = document.getElementById("go-divergence");
      if (go) go.setAttribute("href", "#" + target.id);
      target.scrollIntoView({ block: "center" });
    }
  }

  window.addEventListener("beforeprint", function () { views.forEach(function (view) { if (view) view.ensure(Infinity); }); });
  document.documentElement.setAttribute("data-ready-ms", String(Math.round(performance.now())));
})();
`;
