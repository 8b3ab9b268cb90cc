import type { Clock } from "../context/index.js";

/**
 * A run's clock under replay. The log reads the clock once per appended event, for its `at`,
 * and nothing else in the run path reads it: so serving the recorded `at` values in order gives
 * the run its recorded times. Past the recording (a changed agent that goes on), time stands
 * at the last recorded value; sleeps (retry backoff) return at once.
 */
export function replayClock(times: readonly number[]): Clock & { readonly reads: number; rewind(reads: number): void } {
  let next = 0;
  return {
    /** Takes back reads whose events were never written (a replayed kill refused their append). */
    rewind(reads: number) {
      next = Math.max(0, next - reads);
    },
    now() {
      const value = times[Math.min(next, times.length - 1)] ?? 0;
      next++;
      return value;
    },
    sleep: () => Promise.resolve(),
    get reads() {
      return next;
    },
  };
}
