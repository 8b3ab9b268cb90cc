import { rmSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { seededRandom } from "../../src/context/index.js";
import { processes } from "../cli/run-cli.js";
import { race, reference, trials, workspace } from "./harness.js";

const TRIALS = 32;
const ws = workspace("test");
afterAll(() => rmSync(ws.dir, { recursive: true, force: true }));

describe("crash harness: SIGKILL at a random instant, then resume from another process", () => {
  it(
    `holds every invariant in ${TRIALS} kill trials (ledger, prefix bytes, seq, chain, log equal to the uninterrupted one, completed)`,
    async () => {
      const ref = await reference(ws);
      const results = await trials(ws, ref, TRIALS, 4, seededRandom(Date.now() >>> 0));
      const failed = results.filter((result) => result.failures.length > 0);
      expect(failed.map((result) => `${result.runId} (killed after ${result.killedAfter}): ${result.failures.join("; ")}`)).toEqual([]);
      // Most kills land while a child is mid-run, not before it started or after it exited.
      expect(results.filter((result) => result.killed).length).toBeGreaterThanOrEqual(TRIALS / 2);
    },
    processes(TRIALS * 2),
  );

  it(
    "lets exactly one of two concurrent resumers proceed; the other exits 4 naming the holder",
    async () => {
      for (let index = 0; index < 2; index++) {
        const outcome = await race(ws, index);
        expect(outcome.failures).toEqual([]);
        expect(outcome.proceeded).toBe(1);
      }
    },
    processes(8),
  );
});
