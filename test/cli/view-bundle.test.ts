import { cpSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { TimelineModel, VerdictView } from "../../src/report-html/index.js";
import { tempDir } from "../helpers.js";
import { processes, retrace, root } from "./run-cli.js";

const bundle = (name: string) => join(root, "bundles", `${name}.tgz`);

function pageData(file: string): { model: TimelineModel; verdict?: VerdictView } {
  const match = /<script type="application\/json" id="retrace-data">([\s\S]*?)<\/script>/.exec(readFileSync(file, "utf8"));
  return JSON.parse(match?.[1] ?? "null") as { model: TimelineModel; verdict?: VerdictView };
}

/** The blocked-failed bundle's agent with one word of its system prompt changed, beside an empty workspace. */
function changedAgent(): string {
  const dir = tempDir("retrace-view-bundle-");
  cpSync(join(root, "fixtures/bundles/blocked-failed"), dir, { recursive: true });
  mkdirSync(join(dir, "workspace"), { recursive: true });
  const config = join(dir, "agent.yaml");
  writeFileSync(config, readFileSync(config, "utf8").replace("then answer briefly.", "then answer in detail."));
  return dir;
}

describe("retrace view <bundle.tgz>", () => {
  it("shows the bundled run with its child runs nested under the calls that started them", async () => {
    const dir = tempDir("retrace-view-bundle-");
    const view = await retrace(["view", bundle("parallel-sub-agent"), "-o", "page.html"], { cwd: dir });
    expect([view.code, view.stderr]).toEqual([0, ""]);
    const { model, verdict } = pageData(join(dir, "page.html"));
    expect(verdict).toBeUndefined();
    expect(model.runs.length).toBeGreaterThan(1);
    const [rootRun, ...children] = model.runs;
    for (const [index, child] of children.entries()) {
      const parentRun = model.runs.find((run) => run.runId === child.parent?.runId);
      expect(parentRun?.rows.some((row) => row.k === "tool" && row.callId === child.parent?.callId && row.child === index + 1)).toBe(true);
    }
    expect(rootRun?.parent).toBeUndefined();
  }, processes(1));

  it("--replay shows the verdict: identical for the bundle as it is, the divergence and request diff for a changed config", async () => {
    const dir = changedAgent();
    const same = await retrace(["view", bundle("blocked-failed"), "--replay", "-o", "same.html"], { cwd: dir });
    expect(same.code).toBe(0);
    expect(pageData(join(dir, "same.html")).verdict).toMatchObject({ status: "identical" });

    const changed = await retrace(["view", bundle("blocked-failed"), "--config", "agent.yaml", "-o", "changed.html"], { cwd: dir });
    expect([changed.code, changed.stderr]).toEqual([0, ""]);
    const { model, verdict } = pageData(join(dir, "changed.html"));
    expect(verdict).toMatchObject({ status: "diverged", divergence: { runId: model.runs[0]?.runId, seq: 3 } });
    expect(verdict?.divergence?.diff).toContainEqual(expect.objectContaining({ path: "system", words: expect.stringContaining("[-briefly-]{+in detail+}") }));
    // The divergent seq is a model call of the recorded run, which the page marks.
    expect(model.runs[0]?.rows.find((row) => row.seqs.includes(3))?.k).toBe("model");

    // A verdict saved by retrace replay --json gives the same page.
    const saved = await retrace(["replay", bundle("blocked-failed"), "--config", "agent.yaml", "--json"], { cwd: dir });
    expect(saved.code).toBe(1);
    writeFileSync(join(dir, "verdict.json"), saved.stdout);
    const fromFile = await retrace(["view", bundle("blocked-failed"), "--verdict", "verdict.json", "-o", "saved.html"], { cwd: dir });
    expect(fromFile.code).toBe(0);
    expect(pageData(join(dir, "saved.html"))).toMatchObject({ model, verdict });
  }, processes(4));

  it("refuses bundle options without a bundle, a verdict that is not one, and a file that is not a bundle, with exit 2", async () => {
    const dir = tempDir("retrace-view-bundle-");
    const notBundle = await retrace(["view", "run_x", "--replay"], { cwd: dir });
    expect([notBundle.code, notBundle.stderr]).toEqual([2, expect.stringContaining("--replay, --config and --verdict are for a bundle")]);
    writeFileSync(join(dir, "verdict.json"), JSON.stringify({ status: "maybe" }));
    const badVerdict = await retrace(["view", bundle("blocked-failed"), "--verdict", "verdict.json"], { cwd: dir });
    expect([badVerdict.code, badVerdict.stderr]).toEqual([2, expect.stringContaining("not a replay verdict: status")]);
    writeFileSync(join(dir, "fake.tgz"), "not a tarball");
    const fake = await retrace(["view", "fake.tgz"], { cwd: dir });
    expect(fake.code).toBe(2);
    expect(fake.stderr).toMatch(/^error: /);
    expect(fake.stderr).not.toMatch(/\n\s+at /);
  }, processes(3));
});
