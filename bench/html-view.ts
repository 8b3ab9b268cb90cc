/**
 * How long a large run's timeline page takes to open: a run of N events (default 10,000;
 * BENCH_EVENTS overrides) rendered with renderTimelineHtml, then opened in headless Chromium
 * (RETRACE_CHROMIUM, default /usr/bin/chromium) until its script has drawn the first rows.
 * The floor is a near-empty page opened the same way in the same browser: the ratio is what
 * the page itself costs beyond the browser's own fixed cost. Never asserted in a test.
 * Run: npm run bench -- html-view
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium, type Browser } from "playwright-core";
import { RunEventSchema, type Message, type RunEvent } from "../src/contracts/index.js";
import { renderTimelineHtml } from "../src/report-html/index.js";

/** A context window the agent keeps: the first message and the last ones, as long-running agents trim. */
const WINDOW = 40;

/**
 * A long run, event for event as a store returns it (fresh objects, nothing shared): each step
 * a model call asking for a calculator call, and the call; every 25 steps a new user turn.
 */
function longRun(count: number): RunEvent[] {
  const tools = [{ name: "calculator", description: "Evaluates arithmetic.", parameters: { type: "object", properties: { expression: { type: "string" } }, required: ["expression"] } }];
  const payloads: Record<string, unknown>[] = [{ type: "run.started", agent: { name: "bench", digest: "d" }, model: { provider: "scripted", model: "scripted" }, seed: 0, config: {} }];
  const history: Message[] = [];
  let step = 0;
  while (payloads.length < count - 1) {
    if (step % 25 === 0) {
      const content = `Turn ${step / 25 + 1}: add the next numbers, one at a time, and explain each step. `.repeat(3);
      payloads.push({ type: "message", role: "user", content });
      history.push({ role: "user", content });
    }
    step++;
    const callId = `call_${step}`;
    const messages = history.length > WINDOW ? [history[0] as Message, ...history.slice(-WINDOW + 1)] : [...history];
    const call = { id: callId, name: "calculator", arguments: JSON.stringify({ expression: `${step} + ${step + 1}` }) };
    const text = `Step ${step}: I will add ${step} and ${step + 1} with the calculator.`;
    payloads.push({ type: "llm.started", step, attempt: 1, requestKey: `key_${step}`, request: { model: "scripted", system: "You are a careful assistant. ".repeat(20), messages, tools } });
    payloads.push({ type: "llm.finished", step, attempt: 1, requestKey: `key_${step}`, response: { text, toolCalls: [call], stopReason: "tool_calls", usage: { inputTokens: 400 + messages.length * 30, outputTokens: 25, cachedInputTokens: 0 } }, cost: 0.00004, durationMs: 300 + (step % 13) * 40 });
    payloads.push({ type: "tool.requested", step, callId, name: "calculator", args: { expression: `${step} + ${step + 1}` } });
    payloads.push({ type: "tool.started", callId, name: "calculator" });
    payloads.push({ type: "tool.finished", callId, name: "calculator", result: { expression: `${step} + ${step + 1}`, result: 2 * step + 1 } });
    history.push({ role: "assistant", content: text, toolCalls: [call] }, { role: "tool", toolCallId: callId, name: "calculator", content: String(2 * step + 1), isError: false });
  }
  payloads.push({ type: "run.finished", status: "completed", output: "Done.", usage: { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0 }, cost: null, steps: step });
  const start = Date.UTC(2026, 0, 1);
  // Through JSON, as a store hands events back: no object shared between two requests.
  return JSON.parse(JSON.stringify(payloads.map((payload, index) => RunEventSchema.parse({ v: 1, runId: "bench_long", seq: index + 1, at: new Date(start + index * 50).toISOString(), ...payload })))) as RunEvent[];
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

async function openTimes(browser: Browser, file: string, rounds: number): Promise<{ wall: number; ready: number }> {
  const walls: number[] = [];
  const readies: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const page = await browser.newPage();
    const started = performance.now();
    await page.goto(pathToFileURL(file).href);
    const ready = await page.waitForSelector("html[data-ready-ms]").then(() => page.getAttribute("html", "data-ready-ms"));
    walls.push(performance.now() - started);
    readies.push(Number(ready));
    await page.close();
  }
  return { wall: median(walls), ready: median(readies) };
}

export async function benchHtmlView(): Promise<void> {
  const count = Number(process.env.BENCH_EVENTS ?? 10_000);
  const dir = mkdtempSync(join(tmpdir(), "retrace-bench-html-"));
  try {
    const events = longRun(count);
    let started = performance.now();
    const html = renderTimelineHtml({ run: { events } });
    const renderMs = performance.now() - started;
    const file = join(dir, "long.html");
    writeFileSync(file, html);
    const floorFile = join(dir, "floor.html");
    writeFileSync(floorFile, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>floor</title></head><body><p>floor</p><script>document.documentElement.setAttribute("data-ready-ms", String(Math.round(performance.now())))</script></body></html>`);
    started = performance.now();
    const browser = await chromium.launch({ executablePath: process.env.RETRACE_CHROMIUM ?? "/usr/bin/chromium", headless: true, args: ["--disable-gpu", "--disable-dev-shm-usage"] });
    const launchMs = performance.now() - started;
    try {
      await openTimes(browser, floorFile, 1); // warm the browser's first-page costs
      const floor = await openTimes(browser, floorFile, 5);
      const page = await openTimes(browser, file, 5);
      console.log(`html-view: ${events.length} events → ${(html.length / 1e6).toFixed(2)} MB page, rendered in ${renderMs.toFixed(0)} ms (node)`);
      console.log(`  chromium launch ${launchMs.toFixed(0)} ms (once)`);
      console.log(`  open until first rows drawn: ${page.wall.toFixed(0)} ms (goto → ready, median of 5); page's own clock ${page.ready} ms after navigation start`);
      console.log(`  floor (near-empty page): ${floor.wall.toFixed(0)} ms; ratio ${(page.wall / floor.wall).toFixed(1)}×`);
      console.log(`  target: under 2000 ms — ${page.wall < 2000 ? "met" : "NOT met"}`);
    } finally {
      await browser.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
