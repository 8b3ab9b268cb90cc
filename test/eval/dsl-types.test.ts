/**
 * `t`'s assertion methods are built from the scorers' sugar; their public signatures are the
 * ones the README documents, checked here at the type level (and once at run time).
 */
import { describe, expectTypeOf, it, expect } from "vitest";
import type { BlockReason } from "../../src/contracts/index.js";
import { EvalContext, type AssertOptions } from "../../src/eval/index.js";
import { builtinAssertions } from "../../scorers/index.js";

type Sequence = readonly (string | { name: string; args?: unknown })[];

describe("t's assertion methods", () => {
  it("keep their documented signatures", () => {
    expectTypeOf<EvalContext["calledTool"]>().toEqualTypeOf<(name: string, options?: AssertOptions & { times?: number }) => void>();
    expectTypeOf<EvalContext["calledToolWith"]>().toEqualTypeOf<
      (name: string, args: Record<string, unknown>, options?: AssertOptions & { strict?: boolean; times?: number }) => void
    >();
    expectTypeOf<EvalContext["notCalledTool"]>().toEqualTypeOf<(name: string, options?: AssertOptions & object) => void>();
    expectTypeOf<EvalContext["toolWasBlocked"]>().toEqualTypeOf<(name: string, options?: AssertOptions & { reason?: BlockReason }) => void>();
    expectTypeOf<EvalContext["toolSequence"]>().toEqualTypeOf<
      (calls: Sequence, options?: AssertOptions & { ordered?: boolean; allowExtra?: boolean; args?: "strict" | "partial" | "ignore" }) => void
    >();
    expectTypeOf<EvalContext["usedNoTools"]>().toEqualTypeOf<(options?: AssertOptions & object) => void>();
    expectTypeOf<EvalContext["completed"]>().toEqualTypeOf<(options?: AssertOptions & object) => void>();
    expectTypeOf<EvalContext["failed"]>().toEqualTypeOf<(options?: AssertOptions & { code?: string }) => void>();
    expectTypeOf<EvalContext["retrievedChunk"]>().toEqualTypeOf<
      (match: string | { text?: string; id?: string; source?: string; maxRank?: number }, options?: AssertOptions & { caseSensitive?: boolean; turn?: number; maxRank?: number }) => void
    >();
    expectTypeOf<EvalContext["rankingMetric"]>().toEqualTypeOf<
      (metric: "recall" | "precision" | "hit_rate" | "mrr" | "ndcg", gold: (string | { id: string } | { text: string })[], options?: AssertOptions & { k?: number; min?: number; turn?: number }) => void
    >();
    expectTypeOf<EvalContext["citationsResolve"]>().toEqualTypeOf<(options?: AssertOptions & { everySentence?: boolean; allowNone?: boolean; turn?: number }) => void>();
    expectTypeOf<EvalContext["abstained"]>().toEqualTypeOf<
      (options?: AssertOptions & { whenNothingRelevant?: boolean; relevant?: string[]; phrases?: string[]; turn?: number }) => void
    >();
    expectTypeOf<EvalContext["waiting"]>().toEqualTypeOf<(options?: AssertOptions & object) => void>();
    expectTypeOf<EvalContext["maxToolCalls"]>().toEqualTypeOf<(limit: number, options?: AssertOptions & object) => void>();
    expectTypeOf<EvalContext["blocked"]>().toEqualTypeOf<(options?: AssertOptions & { rule?: string; direction?: "input" | "output" }) => void>();
    expectTypeOf<EvalContext["warned"]>().toEqualTypeOf<(options?: AssertOptions & { rule?: string; direction?: "input" | "output" }) => void>();
    expectTypeOf<EvalContext["outputContains"]>().toEqualTypeOf<(text: string | readonly string[], options?: AssertOptions & { caseSensitive?: boolean }) => void>();
    expectTypeOf<EvalContext["outputMatches"]>().toEqualTypeOf<(pattern: RegExp, options?: AssertOptions & object) => void>();
    expectTypeOf<EvalContext["maxSteps"]>().toEqualTypeOf<(limit: number, options?: AssertOptions & object) => void>();
    expectTypeOf<EvalContext["maxTokens"]>().toEqualTypeOf<(limit: number, options?: AssertOptions & object) => void>();
    expectTypeOf<EvalContext["maxCost"]>().toEqualTypeOf<(limit: number, options?: AssertOptions & object) => void>();
  });

  it("every entry of the scorers' table is a method of t, scored by a registered scorer", async () => {
    const { hasScorer } = await import("../../scorers/index.js");
    for (const [method, sugar] of Object.entries(builtinAssertions)) {
      expect(typeof (EvalContext.prototype as unknown as Record<string, unknown>)[method], method).toBe("function");
      expect(hasScorer(sugar.scorer), `${method} → ${sugar.scorer}`).toBe(true);
    }
  });
});
