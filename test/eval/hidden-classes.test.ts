/**
 * A suite keeps every case it defines, and every assertion result, until its report. On Node 20
 * (V8 11) an object built by spreading a fresh literal gets a hidden class of its own, so a suite
 * of 10,000 cases kept 27,000 of them (8 MB) and every read of their fields was megamorphic.
 * Checked in a real child process, where V8's own %HaveSameMap can be asked.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const define = fileURLToPath(new URL("../../dist/src/eval/dsl/index.js", import.meta.url));

describe("cases a suite keeps", () => {
  it("cases defined from literals of the same shape share one hidden class", () => {
    const script = `
      const { defineEval } = await import(${JSON.stringify(define)});
      const cases = [];
      for (let i = 0; i < 200; i++) {
        cases.push(defineEval({ name: "case " + i, config: "./agent.yaml", mock: { responses: [{ text: "a" + i }] }, test: async (t) => { t.completed(); } }));
      }
      let same = 0;
      for (const item of cases) if (%HaveSameMap(item, cases[100])) same++;
      process.stdout.write(String(same));
    `;
    const child = spawnSync(process.execPath, ["--allow-natives-syntax", "--input-type=module", "-e", script], { encoding: "utf8" });
    expect(child.stderr).toBe("");
    expect(Number(child.stdout)).toBeGreaterThanOrEqual(195);
  });
});
