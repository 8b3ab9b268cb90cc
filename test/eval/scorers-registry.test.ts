/** The scorer registry: one table per process, built-ins reserved, and names a user can find. */
import { describe, expect, it } from "vitest";
import type { Scorer } from "../../src/contracts/index.js";
import { defineScorer } from "../../src/scoring/index.js";
import { exactScorer, getScorer, hasScorer, listScorers, registerScorer } from "../../scorers/index.js";
import { registerBuiltin } from "../../scorers/registry.js";

const always = (name: string, description = "always passes", reason = "yes"): Scorer =>
  defineScorer({ name, description, score: () => ({ value: 1, pass: true, reason }) });

describe("the scorer registry", () => {
  it("keeps its table on globalThis, where every copy of Retrace in the process finds it", () => {
    const table = (globalThis as Record<symbol, unknown>)[Symbol.for("retrace.scorers.v1")] as Map<string, Scorer>;
    expect(table.get("exact")).toBe(exactScorer);
    const mine = registerScorer(always("test/shared"));
    expect(table.get("test/shared")).toBe(mine);
    const builtins = (globalThis as Record<symbol, unknown>)[Symbol.for("retrace.scorers.builtins.v1")] as Set<string>;
    expect(builtins.has("exact")).toBe(true);
    expect(builtins.has("test/shared")).toBe(false);
  });

  it("finds registered scorers by name", () => {
    const mine = registerScorer(always("test/found"));
    expect(hasScorer("test/found")).toBe(true);
    expect(hasScorer("test/never-registered")).toBe(false);
    expect(getScorer("test/found")).toBe(mine);
  });

  it("lists scorers sorted by name", () => {
    registerScorer(always("zz/last"));
    registerScorer(always("aa/first"));
    const names = listScorers().map((scorer) => scorer.name);
    expect(names).toEqual([...names].sort());
    expect(names[0]).toBe("aa/first");
    expect(names[names.length - 1]).toBe("zz/last");
  });

  it("names the nearest scorer and every registered one when a name is unknown", () => {
    const registered = listScorers().map((scorer) => scorer.name).join(", ");
    expect(() => getScorer("numerik")).toThrow(`no scorer named "numerik" (did you mean "numeric"?); registered: ${registered}`);
    expect(() => getScorer("qqqqqqqqqqqq")).toThrow(`no scorer named "qqqqqqqqqqqq"; registered: ${registered}`);
  });

  it("accepts the same definition twice, and refuses another one under a taken name unless replace is set", () => {
    const first = registerScorer(always("test/twice"));
    expect(() => registerScorer(always("test/twice"))).not.toThrow();
    expect(() => registerScorer(always("test/twice", "another description"))).toThrow(
      'a scorer named "test/twice" is already registered; pick another name or pass { replace: true }',
    );
    const otherScore = defineScorer({ name: "test/twice", description: "always passes", score: () => ({ value: 0, pass: false, reason: "no" }) });
    expect(() => registerScorer(otherScore)).toThrow(/already registered/);
    expect(getScorer("test/twice").description).toBe(first.description);
    const replacement = registerScorer(always("test/twice", "another description"), { replace: true });
    expect(getScorer("test/twice")).toBe(replacement);
    expect(getScorer("test/twice").description).toBe("another description");
  });

  it("never lets a built-in be replaced, even with replace, naming another name to use", () => {
    expect(() => registerScorer(always("exact", "lenient"), { replace: true })).toThrow(
      '"exact" is a built-in scorer and cannot be replaced (every eval file of the run shares it); register yours under another name, e.g. "my/exact"',
    );
    expect(() => registerScorer(always("exact", exactScorer.description))).toThrow(/built-in/);
    // Registering the built-in's own definition again (an eval file loaded twice) is harmless.
    expect(() => registerScorer(exactScorer)).not.toThrow();
    expect(getScorer("exact").score).toBe(exactScorer.score);
  });

  it("keeps the first copy of a built-in when a second copy of Retrace registers it again", () => {
    registerBuiltin(always("exact", "a second copy"));
    expect(getScorer("exact").score).toBe(exactScorer.score);
    const added = registerBuiltin(always("test/builtin-from-a-copy"));
    expect(getScorer("test/builtin-from-a-copy")).toBe(added);
    expect(() => registerScorer(always("test/builtin-from-a-copy", "other"), { replace: true })).toThrow(/built-in/);
  });
});
