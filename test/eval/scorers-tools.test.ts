/** The tool scorers: only a finished call counts as called, and every reason names the tool and what happened. */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { EventPayload } from "../../src/contracts/index.js";
import { noToolsScorer, toolBlockedScorer, toolCalledScorer, toolNotCalledScorer, toolTrajectoryScorer } from "../../scorers/index.js";
import { sequenceOrder } from "../../scorers/tool-trajectory.js";
import { blockedCall, buildLog, failedCall, finished, requested } from "./log.js";
import { score } from "./scoring.js";

const ran = (callId: string, name: string, args: unknown = {}): EventPayload[] => [requested(callId, name, args), finished(callId, name, null)];
const malformed = (callId: string, name: string, rawArgs: string): EventPayload => ({ type: "tool.requested", step: 1, callId, name, rawArgs });

describe("tool-called", () => {
  const log = buildLog([...ran("c1", "search", { q: "a", k: 2 }), ...ran("c2", "search", { q: "b" }), requested("c3", "write", { path: "x" }), blockedCall("c3", "write", "policy_denied")]);

  it("passes for a finished call and counts the matching ones", () => {
    expect(score(toolCalledScorer, { events: log, options: { tool: "search" } })).toEqual({ value: 1, pass: true, reason: "search was called 2 times" });
    expect(score(toolCalledScorer, { events: log, options: { tool: "search", args: { q: "a" } } })).toEqual({
      value: 1,
      pass: true,
      reason: 'search was called with arguments matching {"q":"a"} 1 time',
    });
    expect(score(toolCalledScorer, { events: log, options: { tool: "search", args: { q: "b" }, argsMatch: "strict" } })).toEqual({
      value: 1,
      pass: true,
      reason: 'search was called with arguments {"q":"b"} 1 time',
    });
  });

  it("compares arguments partially by default and exactly with argsMatch strict", () => {
    expect(score(toolCalledScorer, { events: log, options: { tool: "search", args: { q: "a" } } }).pass).toBe(true);
    expect(score(toolCalledScorer, { events: log, options: { tool: "search", args: { q: "a" }, argsMatch: "strict" } })).toEqual({
      value: 0,
      pass: false,
      reason:
        'no call of search had arguments matching {"q":"a"}; the nearest, c1, differs at k: expected (no such key), got 2; calls: search({"k":2,"q":"a"}) finished; search({"q":"b"}) finished',
      details: { expected: { q: "a" }, actual: { q: "a", k: 2 }, differences: [{ path: "k", expected: "(no such key)", actual: 2 }] },
    });
  });

  it("with times, needs exactly that many matching calls", () => {
    expect(score(toolCalledScorer, { events: log, options: { tool: "search", times: 2 } }).pass).toBe(true);
    expect(score(toolCalledScorer, { events: log, options: { tool: "search", times: 1 } })).toEqual({ value: 0, pass: false, reason: "search was called 2 times, expected 1" });
    expect(score(toolCalledScorer, { events: log, options: { tool: "search", args: { q: "b" }, times: 2 } })).toEqual({
      value: 0,
      pass: false,
      reason: 'search was called with arguments matching {"q":"b"} 1 time, expected 2',
    });
  });

  it("fails for a call that was only requested, saying what became of it", () => {
    expect(score(toolCalledScorer, { events: log, options: { tool: "write" } })).toEqual({
      value: 0,
      pass: false,
      reason: 'write was requested 1 time but never ran to completion: write({"path":"x"}) blocked: policy_denied',
    });
  });

  it("fails for a tool never asked for, listing the calls made", () => {
    expect(score(toolCalledScorer, { events: log, options: { tool: "delete" } }).reason).toBe(
      'delete was never called; calls: search({"k":2,"q":"a"}) finished; search({"q":"b"}) finished; write({"path":"x"}) blocked: policy_denied',
    );
    expect(score(toolCalledScorer, { events: buildLog([]), options: { tool: "delete" } }).reason).toBe("delete was never called; calls: none");
  });

  it("names the finished call nearest to the arguments expected, and at most three of its differences", () => {
    const calls = buildLog([...ran("c1", "search", { q: "x", k: 1, lang: "pt", page: 2 }), ...ran("c2", "search", { q: "x", k: 1, lang: "en", page: 1 })]);
    const far = score(toolCalledScorer, { events: calls, options: { tool: "search", args: { q: "y", k: 1, lang: "en", page: 1 } } });
    expect(far.reason).toMatch(/; the nearest, c2, differs at q: expected "y", got "x"; calls: /);
    const reversed = buildLog([...ran("c1", "search", { q: "x", k: 1, lang: "en", page: 1 }), ...ran("c2", "search", { q: "x", k: 1, lang: "pt", page: 2 })]);
    expect(score(toolCalledScorer, { events: reversed, options: { tool: "search", args: { q: "y", k: 1, lang: "en", page: 1 } } }).reason).toMatch(/the nearest, c1, differs at q:/);
    const four = score(toolCalledScorer, { events: buildLog(ran("c1", "search", { a: 0, b: 0, c: 0, d: 0 })), options: { tool: "search", args: { a: 1, b: 1, c: 1, d: 1 } } });
    expect(four.reason).toMatch(/differs at a: expected 1, got 0; at b: expected 1, got 0; at c: expected 1, got 0; calls: /);
    expect((four.details as { differences: unknown[] }).differences).toHaveLength(3);
    const partial = score(toolCalledScorer, { events: buildLog(ran("c1", "search", { q: "xyz", k: 2, extra: true })), options: { tool: "search", args: { q: /x/, k: 1 } } });
    expect((partial.details as { differences: unknown[] }).differences).toEqual([{ path: "k", expected: 1, actual: 2 }]);
    const strict = score(toolCalledScorer, { events: buildLog(ran("c1", "search", { q: "x", k: 2 })), options: { tool: "search", args: { q: "x" }, argsMatch: "strict" } });
    expect((strict.details as { differences: unknown[] }).differences).toEqual([{ path: "k", expected: "(no such key)", actual: 2 }]);
  });

  it("counts a finished call of the tool even when another call of it failed", () => {
    const mixed = buildLog([requested("c1", "calc", { e: "1/0" }), failedCall("c1", "calc", "division by zero"), ...ran("c2", "calc", { e: "2" })]);
    expect(score(toolCalledScorer, { events: mixed, options: { tool: "calc", args: { e: "3" } } }).reason).toBe(
      'no call of calc had arguments matching {"e":"3"}; the nearest, c2, differs at e: expected "3", got "2"; calls: calc({"e":"2"}) finished',
    );
  });
});

describe("tool-not-called", () => {
  it("passes when the tool never ran, saying whether it was asked for", () => {
    const log = buildLog([requested("c1", "write", { path: "x" }), blockedCall("c1", "write", "mode_blocked"), ...ran("c2", "search")]);
    expect(score(toolNotCalledScorer, { events: log, options: { tool: "write" } })).toEqual({
      value: 1,
      pass: true,
      reason: 'write was requested but never ran (write({"path":"x"}) blocked: mode_blocked)',
    });
    expect(score(toolNotCalledScorer, { events: log, options: { tool: "delete" } })).toEqual({ value: 1, pass: true, reason: "delete was never called" });
  });

  it("fails when it ran, naming the calls", () => {
    const log = buildLog([...ran("c1", "write", { path: "a" }), ...ran("c2", "search"), ...ran("c3", "write", { path: "b" })]);
    expect(score(toolNotCalledScorer, { events: log, options: { tool: "write" } })).toEqual({
      value: 0,
      pass: false,
      reason: 'write was called 2 times: write({"path":"a"}) finished; write({"path":"b"}) finished',
    });
    expect(score(toolNotCalledScorer, { events: buildLog(ran("c1", "write")), options: { tool: "write" } }).reason).toBe("write was called 1 time: write({}) finished");
  });
});

describe("tool-blocked", () => {
  const log = buildLog([
    requested("c1", "write", { path: ".env" }),
    blockedCall("c1", "write", "policy_denied", "no secrets in files"),
    requested("c2", "write", { path: "y" }),
    blockedCall("c2", "write", "rate_limited", "2 per minute"),
    ...ran("c3", "search"),
  ]);

  it("passes when a call was blocked, with the first block's reason and detail", () => {
    expect(score(toolBlockedScorer, { events: log, options: { tool: "write" } })).toEqual({ value: 1, pass: true, reason: "write was blocked (policy_denied: no secrets in files)" });
    expect(score(toolBlockedScorer, { events: log, options: { tool: "write", reason: "rate_limited" } })).toEqual({
      value: 1,
      pass: true,
      reason: "write was blocked (rate_limited: 2 per minute)",
    });
  });

  it("fails when it was blocked for other reasons, listing them", () => {
    expect(score(toolBlockedScorer, { events: log, options: { tool: "write", reason: "mode_blocked" } })).toEqual({
      value: 0,
      pass: false,
      reason: "write was blocked with policy_denied, rate_limited, expected mode_blocked",
    });
  });

  it("fails when the tool ran or failed instead, or was never asked for", () => {
    expect(score(toolBlockedScorer, { events: log, options: { tool: "search" } })).toEqual({ value: 0, pass: false, reason: "search was not blocked: search({}) finished" });
    const failing = buildLog([requested("c1", "calc", {}), failedCall("c1", "calc", "boom")]);
    expect(score(toolBlockedScorer, { events: failing, options: { tool: "calc" } }).reason).toBe("calc was not blocked: calc({}) failed: threw");
    expect(score(toolBlockedScorer, { events: log, options: { tool: "delete" } }).reason).toBe(
      'delete was never requested, so nothing was blocked; calls: write({"path":".env"}) blocked: policy_denied; write({"path":"y"}) blocked: rate_limited; search({}) finished',
    );
  });
});

describe("no-tools", () => {
  it("passes when the model asked for no tool, and fails naming every request", () => {
    expect(score(noToolsScorer, { events: buildLog([]) })).toEqual({ value: 1, pass: true, reason: "no tool was requested" });
    const log = buildLog([requested("c1", "write", {}), blockedCall("c1", "write", "mode_blocked"), malformed("c2", "calc", '{"e":')]);
    expect(score(noToolsScorer, { events: log })).toEqual({
      value: 0,
      pass: false,
      reason: 'expected no tool calls; the model requested write({}) blocked: mode_blocked; calc({"e":) pending',
    });
  });
});

describe("tool-trajectory", () => {
  const log = buildLog([...ran("a", "search", { q: 1 }), ...ran("b", "read", { path: "x" }), ...ran("c", "write", { path: "y" })]);
  const trajectory = (expected: unknown, options: object = {}, events = log) => score(toolTrajectoryScorer, { events, expected, options });

  it("ordered: says the calls in order when they match", () => {
    expect(trajectory(["search", "read", "write"])).toEqual({ value: 1, pass: true, reason: 'calls in order: search({"q":1}), read({"path":"x"}), write({"path":"y"})' });
  });

  it("ordered: names the first expected call that is missing", () => {
    expect(trajectory(["search", "delete", "write"])).toEqual({
      value: 1 / 3,
      pass: false,
      reason: 'expected calls in order [search, delete, write]; got [search({"q":1}), read({"path":"x"}), write({"path":"y"})] (first missing: delete)',
    });
    expect(trajectory([{ name: "read", args: { path: "z" } }]).reason).toMatch(/\(first missing: read\(\{"path":"z"\}\)\)$/);
  });

  it("ordered: without allowExtra, an extra call fails the exact sequence", () => {
    expect(trajectory(["search", "read"])).toEqual({
      value: 2 / 3,
      pass: false,
      reason: 'expected exactly [search, read] in order; got [search({"q":1}), read({"path":"x"}), write({"path":"y"})]',
    });
    expect(trajectory(["search", "read"], { allowExtra: true }).pass).toBe(true);
  });

  it("shows calls without arguments when arguments are ignored, and 'no calls' for an empty side", () => {
    expect(trajectory(["search", "read"], { args: "ignore" }).reason).toBe("expected exactly [search, read] in order; got [search, read, write]");
    expect(trajectory([], {}, buildLog([]))).toEqual({ value: 1, pass: true, reason: "calls in order: no calls" });
    expect(trajectory(["search"], {}, buildLog([])).reason).toBe("expected calls in order [search]; got [no calls] (first missing: search)");
    expect(trajectory([], { order: "unordered" }).reason).toBe(
      'expected [no calls] in any order; got [search({"q":1}), read({"path":"x"}), write({"path":"y"})]: unexpected search({"q":1}) finished; read({"path":"x"}) finished; write({"path":"y"}) finished',
    );
  });

  it("unordered: the same calls in any order, naming what is missing and what is unexpected", () => {
    expect(trajectory(["write", "search", "read"], { order: "unordered" })).toEqual({
      value: 1,
      pass: true,
      reason: 'calls [search({"q":1}), read({"path":"x"}), write({"path":"y"})] cover [write, search, read]',
    });
    expect(trajectory(["write", "delete"], { order: "unordered" })).toEqual({
      value: 1 / 3,
      pass: false,
      reason:
        'expected [write, delete] in any order; got [search({"q":1}), read({"path":"x"}), write({"path":"y"})]: missing delete; unexpected search({"q":1}) finished; read({"path":"x"}) finished',
    });
    expect(trajectory(["write", "search"], { order: "unordered" }).value).toBeCloseTo(2 / 3, 10);
    expect(trajectory(["write", "delete", "move"], { order: "superset" }).reason).toMatch(/: missing delete, move$/);
    expect(trajectory(["write", "search", "read", "delete"], { order: "unordered" })).toMatchObject({
      value: 3 / 4,
      reason: 'expected [write, search, read, delete] in any order; got [search({"q":1}), read({"path":"x"}), write({"path":"y"})]: missing delete',
    });
  });

  it("unordered with allowExtra, and superset: at least these calls, the value the share found", () => {
    expect(trajectory(["write", "search"], { order: "unordered", allowExtra: true }).pass).toBe(true);
    expect(trajectory(["write", "delete"], { order: "superset" })).toEqual({
      value: 0.5,
      pass: false,
      reason: 'expected [write, delete] in any order; got [search({"q":1}), read({"path":"x"}), write({"path":"y"})]: missing delete',
    });
  });

  it("subset: every call made is among the expected ones", () => {
    expect(trajectory(["search", "read", "write", "delete"], { order: "subset" })).toEqual({ value: 1, pass: true, reason: "every call is among [search, read, write, delete]" });
    expect(trajectory(["search", "read"], { order: "subset" })).toEqual({
      value: 2 / 3,
      pass: false,
      reason: 'calls outside [search, read]: write({"path":"y"}) finished',
    });
    expect(trajectory(["search"], { order: "subset" }, buildLog([])).pass).toBe(true);
  });

  it("counts only finished calls, unless include is requested", () => {
    const events = buildLog([...ran("a", "search"), requested("b", "write", {}), blockedCall("b", "write", "policy_denied")]);
    expect(trajectory(["search", "write"], {}, events).pass).toBe(false);
    expect(trajectory(["search", "write"], { include: "requested" }, events).pass).toBe(true);
    expect(trajectory(["search"], { include: "requested" }, events).pass).toBe(false);
  });

  it("compares arguments partially by default, strictly, or not at all", () => {
    expect(trajectory([{ name: "search", args: {} }, "read", "write"]).pass).toBe(true);
    expect(trajectory([{ name: "search", args: {} }, "read", "write"], { args: "strict" }).pass).toBe(false);
    expect(trajectory([{ name: "search", args: { q: 2 } }, "read", "write"]).pass).toBe(false);
    expect(trajectory([{ name: "search", args: { q: 2 } }, "read", "write"], { args: "ignore" }).pass).toBe(true);
  });

  it("refuses an expected value that is not a list of names or { name, args }", () => {
    expect(() => trajectory("search")).toThrow(new TypeError("tool-trajectory needs an array of tool names or { name, args } as expected"));
    expect(() => trajectory([function search() {}])).toThrow(/is neither a tool name nor \{ name, args \}/);
    for (const entry of [null, 5, { args: {} }, { name: 3 }]) {
      expect(() => trajectory([entry])).toThrow(new TypeError(`tool-trajectory: ${entry === null ? "null" : JSON.stringify(entry)} is neither a tool name nor { name, args }`));
    }
  });

  it("unordered: passes exactly when the calls made are a permutation of the expected names (property)", () => {
    const names = fc.array(fc.constantFrom("a", "b", "c"), { maxLength: 5 });
    fc.assert(
      fc.property(names, names, (made, expected) => {
        const events = buildLog(made.flatMap((name, index) => ran(`c${index}`, name)));
        const result = score(toolTrajectoryScorer, { events, expected, options: { order: "unordered" } });
        expect(result.pass).toBe([...made].sort().join() === [...expected].sort().join());
        const superset = score(toolTrajectoryScorer, { events, expected, options: { order: "superset" } });
        const left = [...made];
        const covered = expected.every((name) => {
          const at = left.indexOf(name);
          if (at < 0) return false;
          left.splice(at, 1);
          return true;
        });
        expect(superset.pass).toBe(covered);
      }),
    );
  });
});

describe("sequenceOrder", () => {
  it("maps ordered / allowExtra to a trajectory order", () => {
    expect(sequenceOrder(true, false)).toBe("ordered");
    expect(sequenceOrder(true, true)).toBe("ordered");
    expect(sequenceOrder(false, true)).toBe("superset");
    expect(sequenceOrder(false, false)).toBe("unordered");
  });
});
