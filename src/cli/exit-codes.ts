/** Documented in README.md; the report and the exit code always agree. */
export const ExitCode = {
  ok: 0,
  /** The run (or an eval case) failed. */
  failed: 1,
  /** Bad usage, or a config, script or file that could not be loaded. */
  usage: 2,
  /** The run is waiting for an approval decision. */
  waiting: 3,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
