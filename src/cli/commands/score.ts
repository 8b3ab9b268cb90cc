import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { loadBundle, runFamily } from "../../bundle/index.js";
import { EvalLoadError, UsageError } from "../../errors/index.js";
import { loadEvalFiles } from "../../eval/index.js";
import { scoreRecordedRun } from "../../eval/score-run.js";
import { MemoryRunStore } from "../../store/index.js";
import { parseCommandArgs } from "../args.js";
import { ExitCode } from "../exit-codes.js";
import type { CliIO } from "../io.js";
import { openStore } from "../store.js";

export const scoreHelp = `retrace score <bundle.tgz | runId> --eval <file> [options]

Applies the assertions of an eval file's cases to a run that already happened — a bundle's,
or a run in a store — without running anything (a case body that calls t.send fails).

Options:
  --eval <file>      the eval file whose cases' assertions are applied (required)
  --case <name>      only the case of this name (default: every case in the file)
  --db <path>        run store, for a run id (default .retrace/runs.db)
  --json             print the results as JSON
`;

export async function scoreCommand(argv: string[], io: CliIO): Promise<ExitCode> {
  const { values, positionals } = parseCommandArgs("score", argv, {
    eval: { type: "string" },
    case: { type: "string" },
    db: { type: "string" },
    json: { type: "boolean", default: false },
  });
  const [target, ...extra] = positionals;
  if (!target) throw new UsageError("score: missing <bundle.tgz | runId>\n\n" + scoreHelp);
  if (extra.length) throw new UsageError(`score: unexpected argument "${extra[0]}"`);
  if (!values.eval) throw new UsageError("score: missing --eval <file>");
  const [file] = await loadEvalFiles([values.eval], io.cwd);
  if (!file || file.error) throw new EvalLoadError(file?.error?.message ?? "no eval file", { file: values.eval });
  const cases = values.case === undefined ? file.cases : file.cases.filter((spec) => spec.name === values.case);
  if (cases.length === 0) throw new UsageError(`score: ${values.case === undefined ? "the eval file defines no cases" : `no case named "${values.case}" in ${values.eval}`}`);

  // The run is copied into memory: scoring never writes to a bundle or a store.
  const copy = new MemoryRunStore();
  let runId: string;
  const path = resolve(io.cwd, target);
  if (target.endsWith(".tgz") || existsSync(path)) {
    const bundle = await loadBundle(path, {}, target);
    for (const run of bundle.runs) copy.appendRaw(run.lines);
    runId = bundle.root.runId;
  } else {
    const store = openStore(io.cwd, values.db, undefined, { mustExist: true });
    try {
      for (const run of runFamily(store, target)) copy.appendRaw(run.lines);
    } finally {
      store.close();
    }
    runId = target;
  }
  const results = await scoreRecordedRun(copy, runId, cases);
  if (values.json) io.stdout(`${JSON.stringify({ runId, cases: results })}\n`);
  else {
    const lines: string[] = [];
    for (const result of results) {
      lines.push(`${result.status === "passed" ? "PASS" : "FAIL"}  ${result.name}${result.score === null ? "" : `  (score ${result.score.toFixed(2)})`}`);
      for (const assertion of result.assertions) lines.push(`  ${assertion.status === "passed" ? "✓" : assertion.status === "skipped" ? "-" : "✗"} ${assertion.label}: ${assertion.reason}`);
      for (const error of result.errors) lines.push(`  ! ${error}`);
    }
    const passed = results.filter((result) => result.status === "passed").length;
    lines.push(`${passed} of ${results.length} case(s) passed on run ${runId}`);
    io.stdout(`${lines.join("\n")}\n`);
  }
  return results.every((result) => result.status === "passed") ? ExitCode.ok : ExitCode.failed;
}
