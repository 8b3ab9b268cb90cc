/**
 * Bundles on a page: the recorded run family of a bundle as a timeline, and a replay's verdict
 * (from `--replay` here, or saved by `retrace replay --json`) as the page's verdict banner and
 * divergence marker.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { basename, resolve } from "node:path";
import { z } from "zod";
import { loadBundle, type Bundle, type BundledRun } from "../bundle/index.js";
import { ReportFormatError } from "../errors/index.js";
import { replayBundle, type ReplayVerdict } from "../replay/index.js";
import { renderTimelineHtml, type TimelineRunInput, type VerdictView } from "../report-html/index.js";
import { pageSecrets } from "./html-pages.js";
import type { CliIO } from "./io.js";

/** The bundle's runs as a tree: each child under the run that started it. */
export function bundleRunTree(bundle: Bundle): TimelineRunInput {
  const children = new Map<string, BundledRun[]>();
  for (const run of bundle.runs) {
    const parent = run.started.parent?.runId;
    if (parent !== undefined) children.set(parent, [...(children.get(parent) ?? []), run]);
  }
  const tree = (run: BundledRun, depth: number): TimelineRunInput => ({ events: run.events, children: depth < 32 ? (children.get(run.runId) ?? []).map((child) => tree(child, depth + 1)) : [] });
  return tree(bundle.root, 0);
}

/** What of a verdict the page reads; a saved verdict (`retrace replay --json`) is checked against it. */
const SavedVerdictSchema = z.object({
  status: z.enum(["identical", "diverged"]),
  sha256: z.string().optional(),
  error: z.string().optional(),
  divergence: z
    .object({
      runId: z.string(),
      seq: z.number().int().nonnegative(),
      expected: z.object({ type: z.string() }).passthrough().optional(),
      expectedLine: z.string().optional(),
      actualLine: z.string().optional(),
      changes: z.array(z.string()),
    })
    .optional(),
  request: z
    .object({
      runId: z.string(),
      call: z.number(),
      changes: z.array(z.object({ path: z.string(), expected: z.unknown(), actual: z.unknown(), words: z.string().optional() })),
    })
    .optional(),
});
type SavedVerdict = z.infer<typeof SavedVerdictSchema>;

export function readSavedVerdict(file: string): SavedVerdict {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new ReportFormatError(`cannot read the verdict (save one with retrace replay <bundle> --json > verdict.json): ${(error as Error).message}`, { file });
  }
  const parsed = SavedVerdictSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ReportFormatError(`not a replay verdict: ${issue?.path.join(".") || "(root)"}: ${issue?.message ?? "invalid"}`, { file });
  }
  return parsed.data;
}

export function verdictView(verdict: ReplayVerdict | SavedVerdict): VerdictView {
  if (verdict.status === "identical" || !verdict.divergence) {
    return { status: "identical", summary: `The replay matched the recording event for event${verdict.sha256 ? ` (log sha256 ${verdict.sha256})` : ""}.` };
  }
  const { divergence, request } = verdict;
  const at = `run ${divergence.runId} seq ${divergence.seq}${divergence.expected ? ` (${divergence.expected.type})` : ""}`;
  const diff = request?.changes.length
    ? request.changes.map((change) => ({ path: change.path, recorded: change.expected, replayed: change.actual, ...(change.words !== undefined ? { words: change.words } : {}) }))
    : [{ path: "(event)", recorded: divergence.expectedLine ?? "(none: the recorded log ends here)", replayed: divergence.actualLine ?? "(none: the replayed log ends here)" }];
  return {
    status: "diverged",
    summary: `The replay diverged at ${at}${request ? `; model request #${request.call} of run ${request.runId} differs from the recorded one` : ""}${verdict.error ? `; replay stopped: ${verdict.error}` : ""}.`,
    divergence: { runId: divergence.runId, seq: divergence.seq, reason: divergence.changes.join("; ") || "the replayed event differs from the recorded one", diff },
  };
}

/** `retrace view <bundle.tgz>`: the recorded runs, with the verdict of a replay (run now, or saved) when asked. */
export async function writeBundlePage(target: string, file: string, io: Pick<CliIO, "cwd" | "env">, options: { replay: boolean; config?: string; verdict?: string }): Promise<void> {
  const bundle = await loadBundle(resolve(io.cwd, target));
  let verdict: VerdictView | undefined;
  if (options.verdict !== undefined) verdict = verdictView(readSavedVerdict(resolve(io.cwd, options.verdict)));
  else if (options.replay) verdict = verdictView(await replayBundle(bundle, { env: io.env, ...(options.config !== undefined ? { config: resolve(io.cwd, options.config) } : {}) }));
  writeFileSync(file, renderTimelineHtml({ run: bundleRunTree(bundle), source: basename(target), secrets: pageSecrets(io.env), ...(verdict ? { verdict } : {}) }));
}
