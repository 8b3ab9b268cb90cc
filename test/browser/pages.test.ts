import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadBundle } from "../../src/bundle/index.js";
import { bundleRunTree, verdictView } from "../../src/cli/bundle-pages.js";
import { replayBundle } from "../../src/replay/index.js";
import { renderReportHtml, renderTimelineHtml } from "../../src/report-html/index.js";
import { root } from "../cli/run-cli.js";
import { tempDir } from "../helpers.js";
import { HOSTILE, longRun, richRun, sampleReport, WINDOW } from "../report-html/fixtures.js";
import { axeViolations, launchChromium, serious } from "./chromium.js";

/**
 * The pages in a real browser, all checks in one launch: the report's counts and filters, a
 * model call expanded, an injected script that must not run, the accessibility check, the
 * divergence marker and a 10,000-event run. Screenshots go to a temp dir (printed at the end).
 */
const dir = process.env.RETRACE_SCREENSHOTS ?? tempDir("retrace-pages-");
let browser: Browser;
let context: BrowserContext;
const pageErrors: string[] = [];

const pwned = (page: Page) => page.evaluate(() => (globalThis as { __pwned?: unknown }).__pwned);

async function open(file: string): Promise<Page> {
  const page = await context.newPage();
  page.on("pageerror", (error) => pageErrors.push(`${file}: ${error.message}`));
  await page.goto(pathToFileURL(join(dir, file)).href);
  await page.waitForSelector("html[data-ready-ms]");
  return page;
}

function write(file: string, html: string): void {
  mkdirSync(join(dir, file, ".."), { recursive: true });
  writeFileSync(join(dir, file), html);
}

describe("the HTML pages in Chromium", { timeout: 120_000 }, () => {
  beforeAll(async () => {
    write("report.html", renderReportHtml(sampleReport(), { timelines: { run_rich: "report.runs/run_rich.html" } }));
    write("report.runs/run_rich.html", renderTimelineHtml({ run: richRun() }));
    write(
      "diverged.html",
      renderTimelineHtml({
        run: richRun(),
        verdict: { status: "diverged", summary: "the replay asked the model something else at step 2", divergence: { seq: 11, reason: "request differs", diff: [{ path: "messages[2].content", recorded: "42", replayed: "41" }] } },
      }),
    );
    write("long.html", renderTimelineHtml({ run: longRun(2000) }));
    // A real divergence: a kept bundle replayed with one word of its agent's system prompt changed.
    const agentDir = join(dir, "changed-agent");
    cpSync(join(root, "fixtures/bundles/blocked-failed"), agentDir, { recursive: true });
    mkdirSync(join(agentDir, "workspace"), { recursive: true });
    const config = join(agentDir, "agent.yaml");
    writeFileSync(config, readFileSync(config, "utf8").replace("then answer briefly.", "then answer in detail."));
    const bundle = await loadBundle(join(root, "bundles/blocked-failed.tgz"));
    write("bundle-diverged.html", renderTimelineHtml({ run: bundleRunTree(bundle), verdict: verdictView(await replayBundle(bundle, { config, env: {} })) }));
    browser = await launchChromium();
    // bypassCSP only so the test can inject axe-core; the pages' own policy is tested in pages.test.ts.
    context = await browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 900 } });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    console.log(`page screenshots: ${dir}`);
  });

  it("shows the report's counts, filters to the failed cases, and runs no script from an answer", async () => {
    const page = await open("report.html");
    const cards = await page.locator(".card").allInnerTexts();
    expect(cards.map((text) => text.replace(/\s+/g, " "))).toEqual(expect.arrayContaining(["5 cases", "2 passed", "2 failed", "1 errors", "0.75 score (mean of 4 scored)", "mock mode"]));
    await expect.poll(() => page.locator("#shown").innerText()).toBe("Showing 5 of 5 case(s)");
    expect(await page.locator("details.case:visible").count()).toBe(5);

    await page.selectOption("#f-status", "failed");
    expect(await page.locator("#shown").innerText()).toBe("Showing 2 of 5 case(s)");
    expect(await page.locator("#filtered-by").innerText()).toBe("filtered by status failed");
    expect(await page.locator("details.case:visible").evaluateAll((nodes) => nodes.map((node) => node.getAttribute("data-status")))).toEqual(["failed", "failed"]);
    await page.fill("#f-text", ".env");
    expect(await page.locator("#shown").innerText()).toBe("Showing 1 of 5 case(s)");
    await page.fill("#f-text", "");
    await page.selectOption("#f-tag", "math");
    expect(await page.locator("#shown").innerText()).toBe("Showing 1 of 5 case(s)");
    await page.selectOption("#f-tag", "");
    await page.selectOption("#f-file", "eval/tools.eval.ts");
    expect(await page.locator("#shown").innerText()).toBe("Showing 1 of 5 case(s)");
    await page.selectOption("#f-file", "");

    // The failed case that quotes a hostile answer: its reason is text, and the script is inert.
    const hostile = page.locator("details.case", { hasText: "multiplies" });
    await hostile.locator("summary").click();
    await expect.poll(() => hostile.locator("td.grow").allInnerTexts()).toContain(`expected a call to calculator; the answer was ${HOSTILE}`);
    expect(await hostile.innerText()).toContain("1 scripted response was never used");
    expect(await page.locator("script").count()).toBe(2);
    expect(await page.locator("img").count()).toBe(0);
    expect(await pwned(page)).toBeUndefined();
    await page.screenshot({ path: join(dir, "report-failed.png"), fullPage: true });

    expect(serious(await axeViolations(page))).toEqual([]);
    await page.emulateMedia({ media: "print" });
    expect(await page.locator(".controls").isVisible()).toBe(false);
    await page.screenshot({ path: join(dir, "report-print.png"), fullPage: true });

    // The passed case's run links to its timeline page.
    await page.emulateMedia({ media: "screen" });
    await page.selectOption("#f-status", "");
    const first = page.locator("details.case", { hasText: "adds" });
    await first.locator("summary").click();
    await first.getByRole("link", { name: "Timeline of run run_rich" }).click();
    await page.waitForSelector("html[data-ready-ms]");
    expect(await page.locator("h1").innerText()).toBe("Run run_rich");
    await page.close();
  });

  it("shows a run's timeline: a model call expanded to its request and response, tools, approvals, the child run", async () => {
    const page = await open("report.runs/run_rich.html");
    expect(await page.locator(".card", { hasText: "events" }).innerText()).toContain("30");
    expect(await page.locator("[data-kind=model]").count()).toBe(5);
    expect(await page.locator("[data-kind=turn]").count()).toBe(2);

    const step3 = page.locator("details.model", { hasText: "step 3" });
    await step3.locator("summary").first().click();
    const body = step3.locator(".body").first();
    await expect.poll(() => body.innerText()).toContain("Response");
    await body.locator("details.part", { hasText: "Messages" }).locator("summary").click();
    await expect.poll(() => body.locator("details.part", { hasText: "Messages" }).locator("ol > li").count()).toBe(5);
    await body.locator("details.part", { hasText: "System prompt" }).locator("summary").click();
    await expect.poll(() => body.innerText()).toContain("You are careful.");
    expect(await body.locator("pre[aria-label=answer]").innerText()).toBe(HOSTILE);
    expect(await pwned(page)).toBeUndefined();
    expect(await page.locator("img").count()).toBe(0);

    const blocked = page.locator("details.tool", { hasText: "write_file" });
    await blocked.locator("summary").first().click();
    await expect.poll(() => blocked.innerText()).toContain("denied as admin by alice: not on a Friday");
    const helper = page.locator("details.tool", { hasText: "helper" });
    await helper.locator("summary").first().click();
    await expect.poll(() => helper.innerText()).toContain("Child run run_rich.c3");
    expect(await helper.innerText()).toContain("docs/keys.md#1");
    expect(await page.locator("[data-kind=guardrail]").innerText()).toContain("no-refunds");
    const augment = page.locator("details.retrieval");
    await augment.locator("summary").click();
    await expect.poll(() => augment.innerText()).toContain("Guide › Next steps");
    // The problems list leads to each: the first retry, the blocked write, the call with bad arguments.
    expect(await page.locator("ul.problems button").allInnerTexts()).toEqual(["model call failed: rate_limit · #3", "write_file blocked (approval denied) · #12", "calculator failed (invalid arguments) · #20"]);
    await page.screenshot({ path: join(dir, "timeline.png"), fullPage: true });
    expect(serious(await axeViolations(page))).toEqual([]);
    await page.close();
  });

  it("marks a replay's divergent event and links to it from the verdict, for a synthetic run and a real bundle replayed with a changed config", async () => {
    const page = await open("diverged.html");
    const marked = page.locator(".divergent");
    expect(await marked.count()).toBe(1);
    expect(await marked.getAttribute("data-kind")).toBe("model");
    expect(await marked.innerText()).toContain("step 2");
    expect(await marked.locator(".banner").innerText()).toMatch(/diverged here\s+request differs — see the request diff/);
    expect(await page.locator("#go-divergence").getAttribute("href")).toBe(`#${await marked.getAttribute("id")}`);
    expect(await page.locator(".banner table").innerText()).toContain("messages[2].content");
    expect(serious(await axeViolations(page))).toEqual([]);
    await page.screenshot({ path: join(dir, "diverged.png") });
    await page.close();

    const replayed = await open("bundle-diverged.html");
    expect(await replayed.locator(".divergent").getAttribute("data-kind")).toBe("model");
    expect(await replayed.locator(".divergent").getAttribute("data-seq")).toBe("3");
    expect(await replayed.locator(".banner table").innerText()).toContain("[-briefly-]{+in detail+}");
    expect(serious(await axeViolations(replayed))).toEqual([]);
    await replayed.screenshot({ path: join(dir, "bundle-diverged.png"), fullPage: true });
    await replayed.close();
  });

  it("opens a 10,000-event run drawing only a first batch of rows, with long texts collapsed and its problems listed", async () => {
    const page = await open("long.html");
    expect(await page.locator(".card", { hasText: "events" }).innerText()).toContain("10004");
    const drawn = await page.locator(".rows > *").count();
    expect(drawn).toBeGreaterThan(0);
    expect(drawn).toBeLessThan(1000);
    const more = page.locator("button.more");
    expect(await more.innerText()).toMatch(/^Show more \(\d+ row\(s\) left\)$/);
    await more.click();
    expect(await page.locator(".rows > *").count()).toBeGreaterThan(drawn);
    // A request sent in a context window is rebuilt exactly: the first message, then the latest.
    const step50 = page.locator("details.model", { hasText: "step 50 " });
    await step50.locator("summary").first().click();
    const messages = step50.locator("details.part", { hasText: "Messages" });
    await expect.poll(async () => (await messages.locator("summary").innerText()).replace(/\s+/g, " ")).toBe(`Messages (${WINDOW})`);
    await messages.locator("summary").click();
    await expect.poll(() => messages.locator("ol > li").count()).toBe(WINDOW);
    expect(await messages.locator("ol > li").first().innerText()).toContain("Count, one step at a time.");
    expect(await messages.locator("ol > li").last().innerText()).toContain("calculator call_49");
    // A problem far down the run: the problems list draws the rows down to it and opens it.
    await page.locator("ul.problems button").first().click();
    await expect.poll(() => page.locator("details.model[open]", { hasText: "model call failed" }).count()).toBe(1);
    const tool = page.locator("details.tool").nth(4);
    await tool.locator("summary").first().click();
    await expect.poll(() => tool.getByRole("button", { name: /^Show all [\d,]+ characters$/ }).count()).toBe(1);
    await page.screenshot({ path: join(dir, "long.png") });
    await page.close();
    expect(pageErrors).toEqual([]);
  });
});
