/**
 * The run context is the only source of time, ids and randomness in the run path, so that a
 * replay can hand a run the same values it saw when it was recorded. The wall clock and
 * crypto ids are read here, at the edge, and nowhere else.
 */
import { randomUUID } from "node:crypto";

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Waits `ms` on this clock: real time for the system clock, instant for a manual one. */
  sleep(ms: number): Promise<void>;
}

export interface IdSource {
  runId(): string;
}

export interface RunContext {
  readonly clock: Clock;
  readonly ids: IdSource;
  readonly seed: number;
  /** Deterministic for a given seed: [0, 1). */
  random(): number;
  /**
   * The clock of one run, when runs of one context must not share a clock: a replay serves
   * each run (each child run too) the times that run recorded. Absent: every run reads `clock`.
   */
  clockFor?(runId: string): Clock;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** A clock that starts at `start` and advances by `step` ms on every read; `sleep` advances it instantly. */
export function manualClock(start = Date.UTC(2026, 0, 1), step = 0): Clock & { advance(ms: number): void; readonly slept: number[] } {
  let current = start;
  const slept: number[] = [];
  return {
    now() {
      const value = current;
      current += step;
      return value;
    },
    sleep(ms) {
      slept.push(ms);
      current += ms;
      return Promise.resolve();
    },
    advance(ms) {
      current += ms;
    },
    slept,
  };
}

export const randomIds: IdSource = {
  runId: () => `run_${randomUUID().replace(/-/g, "").slice(0, 20)}`,
};

/** Ids `run_0001`, `run_0002`, ... for tests and reproducible examples. */
export function sequentialIds(prefix = "run_"): IdSource {
  let next = 1;
  return { runId: () => `${prefix}${String(next++).padStart(4, "0")}` };
}

/** mulberry32: tiny, fast and fully determined by the seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function createRunContext(options: { clock?: Clock; ids?: IdSource; seed?: number; clockFor?: (runId: string) => Clock } = {}): RunContext {
  const seed = options.seed ?? 0;
  return {
    clock: options.clock ?? systemClock,
    ids: options.ids ?? randomIds,
    seed,
    random: seededRandom(seed),
    ...(options.clockFor ? { clockFor: options.clockFor } : {}),
  };
}
