/** Documented in README.md; the report and the exit code always agree. */
export const ExitCode = {
  ok: 0,
  /** The run (or an eval case) failed. */
  failed: 1,
  /** Bad usage, or a config, script or file that could not be loaded. */
  usage: 2,
  /** The run is waiting for an approval decision. */
  waiting: 3,
  /** Another live process is executing the run (it holds the run's lease); nothing was done. */
  busy: 4,
  /** The run's log failed its hash-chain check (an edited, deleted or swapped row). */
  tampered: 5,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
