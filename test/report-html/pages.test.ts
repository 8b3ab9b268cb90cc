import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Message, RunEvent, ToolCall } from "../../src/contracts/index.js";
import { buildTimeline, embedJson, escapeHtml, renderReportHtml, renderTimelineHtml, type TimelineModel, type TimelineRow } from "../../src/report-html/index.js";
import { HOSTILE, longRun, richRun, sampleReport, SECRET } from "./fixtures.js";

/** The JSON the page embeds, read back the way the page's script reads it. */
function embedded(page: string): unknown {
  const match = /<script type="application\/json" id="retrace-data">([\s\S]*?)<\/script>/.exec(page);
  if (!match?.[1]) throw new Error("no data element");
  return JSON.parse(match[1]);
}

/** The messages of a model row as the page's script rebuilds them from the deltas. */
function messagesOf(model: TimelineModel, runIndex: number, rowIndex: number): Message[] {
  const rows = model.runs[runIndex]?.rows ?? [];
  const chain = [];
  for (let i: number | null = rowIndex; i !== null; ) {
    const row: TimelineRow | undefined = rows[i];
    if (row?.k !== "model") throw new Error(`row ${i} is not a model call`);
    chain.unshift(row.msgs);
    i = row.msgs.from;
  }
  const out: Message[] = [];
  for (const delta of chain) {
    out.splice(delta.keep, delta.skip ?? 0);
    out.length = delta.keep + (delta.take ?? 0);
    out.push(...delta.add);
  }
  return out;
}

describe("embedding data in a page", () => {
  it("gives back any value, and no text in it can close or comment out the script element", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.string(), (value, text) => {
        const json = embedJson({ value, text });
        expect(json).not.toMatch(/[<>&\u2028\u2029]/);
        expect(JSON.parse(json)).toEqual(JSON.parse(JSON.stringify({ value, text })));
      }),
    );
  });

  it("escapes text for elements and attributes so that no tag or quote survives", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        const escaped = escapeHtml(text);
        expect(escaped).not.toMatch(/[<>"']/);
        expect(escaped.replace(/&(lt|gt|quot|#39|amp);/g, (_, name: string) => ({ lt: "<", gt: ">", quot: '"', "#39": "'", amp: "&" })[name] as string)).toBe(text);
      }),
    );
  });
});

describe("the eval report page", () => {
  const page = renderReportHtml(sampleReport(), { timelines: { run_rich: "report.runs/run_rich.html" }, secrets: [] });

  it("is one file that asks for nothing: no external script, style, image or font, and a policy that refuses any fetch", () => {
    expect(page).toContain(`content="default-src 'none';`);
    expect(page).not.toMatch(/<(script|link|img|iframe)[^>]+(src|href)=/i);
    expect(page).not.toMatch(/https?:\/\//);
  });

  it("writes the summary as text and the report as data, never a hostile answer as markup", () => {
    expect(page).toContain('<span class="value">2</span><span class="label">failed</span>');
    expect(page).not.toContain("<script>window.__pwned");
    const data = embedded(page) as { report: { cases: { attempts: { run: { output: string } }[] }[] }; links: Record<string, string> };
    expect(data.report.cases[1]?.attempts[0]?.run.output).toBe(HOSTILE);
    expect(data.links).toEqual({ run_rich: "report.runs/run_rich.html" });
  });

  it("scrubs credentials from everything it embeds, and the known keys it is given", () => {
    expect(page).not.toContain(SECRET);
    const custom = renderReportHtml({ ...sampleReport(), retrace: "0.1.0 built with my-own-key-123" }, { secrets: ["my-own-key-123"] });
    expect(custom).not.toContain("my-own-key-123");
    expect(custom).toContain("[redacted]");
  });

  it("keeps any text in the markup it writes itself (files, tags, load errors, a baseline's name) as text", () => {
    const base = sampleReport();
    const text = fc.tuple(fc.string(), fc.constantFrom("", "</script>", "<script>x()</script>", "<!--", "\u2028", HOSTILE), fc.string()).map((parts) => parts.join(""));
    fc.assert(
      fc.property(text, text, text, (file, tag, message) => {
        const report = {
          ...base,
          errors: [{ code: "eval_no_match", message }],
          files: [...base.files, { file, cases: 0, error: { code: "eval_load", message } }],
          cases: base.cases.map((c) => ({ ...c, tags: [...c.tags, tag], file })),
          comparison: { baseline: message, regressions: [], fixed: [], added: [file], removed: [], scoreChanges: [] },
        };
        const page = renderReportHtml(report);
        expect(page.match(/<script/g)).toHaveLength(2);
        expect(page.split(/<\/script>/)).toHaveLength(3);
        expect((embedded(page) as { report: { errors: unknown } }).report.errors).toEqual([{ code: "eval_no_match", message: expect.any(String) }]);
      }),
      { numRuns: 200 },
    );
  });

  it("draws the score per case as an SVG chart with an accessible name", () => {
    expect(page).toMatch(/<svg [^>]*role="img" aria-label="Score per case: 5 bar\(s\); from 0\.50 to 1\.00"/);
  });
});

describe("the timeline model", () => {
  it("folds a call's events into one row: model attempts, tool outcomes, approvals, guardrails, retrievals, and the child run under its call", () => {
    const model = buildTimeline(richRun());
    const [root, child] = model.runs;
    expect(model.runs.map((run) => run.runId)).toEqual(["run_rich", "run_rich.c3"]);
    const kinds = root?.rows.map((row) => (row.k === "tool" ? `tool:${row.name}:${row.status}` : row.k === "model" ? `model:${row.step}.${row.attempt}` : row.k));
    expect(kinds).toEqual(["started", "turn", "model:1.1", "model:1.2", "tool:calculator:finished", "model:2.1", "tool:write_file:blocked", "tool:helper:finished", "tool:calculator:failed", "model:3.1", "guardrail", "finished", "turn", "retrieval", "model:4.1", "finished"]);
    const blocked = root?.rows.find((row) => row.k === "tool" && row.callId === "c2");
    expect(blocked).toMatchObject({ blocked: { reason: "approval_denied" }, approvals: [{ kind: "requested", roles: ["admin"] }, { kind: "denied", by: "alice", reason: "not on a Friday" }] });
    const helper = root?.rows.find((row) => row.k === "tool" && row.callId === "c3");
    expect(helper).toMatchObject({ child: 1, retrievals: [{ query: "request keys", chunks: [{ id: "docs/keys.md#1" }] }] });
    expect(child?.parent).toEqual({ runId: "run_rich", callId: "c3" });
    expect(root).toMatchObject({ status: "completed", steps: 4, cost: 0.0007, events: 30 });
    expect(root?.rows.find((row) => row.k === "retrieval")).toMatchObject({ mode: "augment", chunks: [{ title: "What next" }] });
  });

  it("keeps each request as a delta on the one before, system prompts and tool lists once, and gives back every request exactly", () => {
    const run = longRun(60);
    const model = buildTimeline(run);
    expect(model.systems).toHaveLength(1);
    expect(model.toolSets).toHaveLength(1);
    const requests = run.events.flatMap((event) => (event.type === "llm.started" ? [event.request.messages] : []));
    const rows = model.runs[0]?.rows.flatMap((row, index) => (row.k === "model" ? [{ row, index }] : [])) ?? [];
    expect(rows).toHaveLength(61);
    rows.forEach(({ row, index }, n) => {
      expect(messagesOf(model, 0, index)).toEqual(requests[n]);
      expect(row.msgs.add.length).toBeLessThanOrEqual(2);
    });
  });

  it("keeps a conversation held in a context window as the first message, a slice of the one before, and the new turns", () => {
    const { events } = richRun();
    const started = events.find((event) => event.type === "llm.started");
    if (started?.type !== "llm.started") throw new Error("fixture has no model call");
    const all: Message[] = Array.from({ length: 30 }, (_, i) => ({ role: "user", content: `m${i}` }));
    const windows = [0, 2, 4, 6].map((drop) => [all[0] as Message, ...all.slice(1 + drop, 11 + drop)]);
    const model = buildTimeline({ events: windows.map((messages, i) => ({ ...started, seq: i + 1, step: i + 1, request: { ...started.request, messages } })) });
    windows.forEach((messages, i) => expect(messagesOf(model, 0, i)).toEqual(messages));
    const later = model.runs[0]?.rows[1];
    expect(later?.k === "model" && later.msgs).toMatchObject({ from: 0, keep: 1, skip: 2, take: 8 });
    expect(later?.k === "model" && later.msgs.add).toHaveLength(2);
  });

  it("gives back any sequence of requests, whether a conversation grows, shrinks or is rewritten", () => {
    const message = fc.oneof(fc.record({ role: fc.constant("user" as const), content: fc.string({ maxLength: 3 }) }), fc.record({ role: fc.constant("assistant" as const), content: fc.string({ maxLength: 3 }), toolCalls: fc.constant<ToolCall[]>([]) }));
    fc.assert(
      fc.property(fc.array(fc.array(message, { maxLength: 8 }), { minLength: 1, maxLength: 8 }), (conversations) => {
        const { events } = richRun();
        const started = events.find((event) => event.type === "llm.started");
        if (started?.type !== "llm.started") throw new Error("fixture has no model call");
        const calls: RunEvent[] = conversations.map((messages: Message[], i) => ({ ...started, seq: i + 1, step: i + 1, request: { ...started.request, messages } }));
        const model = buildTimeline({ events: calls });
        conversations.forEach((messages, i) => expect(messagesOf(model, 0, i)).toEqual(messages));
      }),
    );
  });
});

describe("the timeline page", () => {
  it("embeds the run with its secrets scrubbed and the hostile answer as data only", () => {
    const page = renderTimelineHtml({ run: richRun(), secrets: [] });
    expect(page).not.toContain(SECRET);
    expect(page).not.toContain("<script>window.__pwned");
    expect(page).toContain("<h1>Run run_rich</h1>");
    expect(page).toMatch(/aria-label="Duration per model call \(ms\): 5 bar\(s\)/);
  });

  it("shows a replay verdict: the first divergent event and the request diff, escaped", () => {
    const page = renderTimelineHtml({
      run: richRun(),
      verdict: { status: "diverged", summary: "the replay asked the model something else", divergence: { seq: 10, reason: "request differs", diff: [{ path: "messages[2].content", recorded: "42", replayed: HOSTILE }] } },
    });
    expect(page).toContain('<span class="badge s-diverged">diverged</span>');
    expect(page).toContain("First divergent event: seq 10");
    expect(page).toContain("&lt;script&gt;window.__pwned = 1&lt;/script&gt;");
    expect(page).not.toContain("<script>window.__pwned");
  });
});
