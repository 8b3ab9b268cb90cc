/**
 * What the timeline shows of a replay verdict: whether the replay matched the recording, and
 * if not, the first divergent event with the difference between the recorded request and the
 * replayed one. Kept apart from the replay's own verdict type, which the CLI maps onto this.
 */
export interface DivergenceView {
  /** The run the divergent event belongs to; absent: the root run. */
  runId?: string;
  /** The seq of the divergent event in the recorded run. */
  seq: number;
  /** For people: what differed (e.g. "the model request differs from the recorded one"). */
  reason: string;
  /** The differences, one per JSON path; `words`, for two texts, marks what changed: `a [-b-]{+c+}`. */
  diff: readonly { path: string; recorded?: unknown; replayed?: unknown; words?: string }[];
}

export interface VerdictView {
  status: "identical" | "diverged";
  /** One line for people. */
  summary: string;
  divergence?: DivergenceView;
}
