/** A case's deadline: what a race against it gives, before and after it passes. */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Deadline, Deadlines, TIMEOUT } from "../../src/eval/runner/deadlines.js";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

function deadline(ms: number): { deadline: Deadline; controller: AbortController } {
  const controller = new AbortController();
  return { deadline: new Deadline(new Deadlines(), ms, controller), controller };
}

describe("Deadline", () => {
  it("gives the promise's outcome when it settles first, and TIMEOUT when the deadline passes first", async () => {
    const { deadline: first, controller } = deadline(1000);
    await expect(first.race(Promise.resolve("done"))).resolves.toBe("done");
    await expect(first.race(Promise.reject(new Error("broke")))).rejects.toThrow("broke");
    const waiting = first.race(new Promise(() => undefined));
    await vi.advanceTimersByTimeAsync(1000);
    await expect(waiting).resolves.toBe(TIMEOUT);
    expect(first.expired).toBe(true);
    expect(controller.signal.aborted).toBe(true);
  });

  it("after it passed, still gives a promise that has settled, and TIMEOUT for one that has not", async () => {
    const { deadline: passed } = deadline(10);
    await vi.advanceTimersByTimeAsync(10);
    await expect(passed.race(Promise.resolve("settled"))).resolves.toBe("settled");
    await expect(passed.race(new Promise(() => undefined))).resolves.toBe(TIMEOUT);
  });

  it("lets a promise that the abort itself settles win its race", async () => {
    const { deadline: passing, controller } = deadline(10);
    const ended = new Promise((_, reject) => controller.signal.addEventListener("abort", () => reject(new Error("stopped by the abort"))));
    const raced = expect(passing.race(ended)).rejects.toThrow("stopped by the abort");
    await vi.advanceTimersByTimeAsync(10);
    await raced;
  });

  it("once cancelled, never ends a race or aborts the case", async () => {
    const { deadline: cancelled, controller } = deadline(10);
    let ended = false;
    void cancelled.race(new Promise(() => undefined)).then(() => (ended = true));
    cancelled.cancel();
    await vi.advanceTimersByTimeAsync(100);
    expect(ended).toBe(false);
    expect(cancelled.expired).toBe(false);
    expect(controller.signal.aborted).toBe(false);
  });
});
