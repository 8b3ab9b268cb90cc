/** Who drives a run (see lease.ts); apart from it so public types never name the SQLite driver. */
export const DEFAULT_LEASE_MS = 15_000;

export interface LeaseHolder {
  runId: string;
  pid: number;
  host: string;
  /** ISO time the holder took the run. */
  since: string;
  /** Epoch ms the lease lapses unless renewed. */
  expires: number;
}

