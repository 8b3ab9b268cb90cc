import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { basename, dirname, extname, isAbsolute, resolve } from "node:path";
import { RunError, UsageError } from "../../errors/index.js";
import { readReport } from "../../eval/report/read.js";
import { renderTimelineHtml } from "../../report-html/index.js";
import { parseCommandArgs } from "../args.js";
import { ExitCode } from "../exit-codes.js";
import { pageSecrets, readRunTree, runFileName, writeHtmlReport } from "../html-pages.js";
import type { CliIO } from "../io.js";
import { openStore } from "../store.js";

export const viewHelp = `retrace view <runId | report.json | bundle.tgz> [--db <path>] [-o <file.html>] [--open]
       retrace view <bundle.tgz> --replay [--config <agent.yaml>] | --verdict <verdict.json>

Writes one self-contained HTML page (no server, no network) and prints its path:
  <runId>        the run's timeline: turns, model calls with request and response, tool calls
                 with arguments and results, blocks, approvals, guardrails, retrievals, child
                 runs nested under the call that started them, tokens and cost per step
  report.json    the eval report (--reporter json=<file>) with filters; timeline pages of its
                 runs are written beside it when its run store (or --db) is there
  bundle.tgz     a captured bundle's run (retrace capture), its child runs nested

  --db <path>    the run store (default .retrace/runs.db; for a report, the one it names)
  -o <file>      where to write (default: <runId>.html here, <report>.html beside the report)
  --open         open the page in the browser ($BROWSER, else the system's opener)

For a bundle:
  --replay       replay it first (as retrace replay: no key, no network) and show the verdict;
                 a divergence is marked on the recorded timeline, with the request diff
  --config <f>   replay with a changed agent config (implies --replay)
  --verdict <f>  show a verdict saved with retrace replay <bundle> --json > <f> instead
`;

export async function viewCommand(argv: string[], io: CliIO): Promise<ExitCode> {
  const { values, positionals } = parseCommandArgs("view", argv, {
    db: { type: "string" },
    output: { type: "string", short: "o" },
    open: { type: "boolean", default: false },
    replay: { type: "boolean", default: false },
    config: { type: "string" },
    verdict: { type: "string" },
  });
  const target = positionals[0];
  if (!target) throw new UsageError(`view: give a run id, a report.json or a bundle\n\n${viewHelp}`);
  if (positionals.length > 1) throw new UsageError(`view: one run, report or bundle at a time (got ${positionals.length})`);
  if (values.output === "") throw new UsageError("view: -o needs a file name");
  const isBundle = /\.(tgz|tar\.gz)$/i.test(target);
  if (!isBundle && (values.replay || values.config !== undefined || values.verdict !== undefined)) {
    throw new UsageError("view: --replay, --config and --verdict are for a bundle (<file.tgz>)");
  }
  if (values.verdict !== undefined && (values.replay || values.config !== undefined)) throw new UsageError("view: --verdict shows a saved verdict; it takes no --replay or --config");
  let file: string;
  if (isBundle) {
    file = resolve(io.cwd, values.output ?? `${basename(target).replace(/\.(tgz|tar\.gz)$/i, "")}.html`);
    const { writeBundlePage } = await import("../bundle-pages.js");
    await writeBundlePage(target, file, io, {
      replay: values.replay || values.config !== undefined,
      ...(values.config !== undefined ? { config: values.config } : {}),
      ...(values.verdict !== undefined ? { verdict: values.verdict } : {}),
    });
  } else if (/\.json$/i.test(target)) {
    const reportFile = resolve(io.cwd, target);
    const report = readReport(reportFile);
    // The report names its store as the eval's command line did; viewed from elsewhere, the
    // store beside the report is the one meant.
    const named = report.runStore;
    const besideReport = named && !isAbsolute(named) && !existsSync(resolve(io.cwd, named)) ? resolve(dirname(reportFile), named) : undefined;
    const runStore = values.db ?? (besideReport && existsSync(besideReport) ? besideReport : named);
    const withStore = { ...report, runStore: runStore ?? null };
    file = resolve(io.cwd, values.output ?? `${target.slice(0, -extname(target).length)}.html`);
    writeHtmlReport(withStore, file, io);
  } else {
    const store = openStore(io.cwd, values.db, undefined, { mustExist: true });
    try {
      const run = readRunTree(store, target);
      if (run.events.length === 0) {
        throw new RunError("run_not_found", `no such run in ${store.path}${values.db === undefined ? " (pass --db <path> if it is in another store)" : ""}`, { runId: target });
      }
      file = resolve(io.cwd, values.output ?? runFileName(target));
      writeFileSync(file, renderTimelineHtml({ run, source: basename(store.path), secrets: pageSecrets(io.env) }));
    } finally {
      store.close();
    }
  }
  io.stdout(`${file}\n`);
  if (values.open) openInBrowser(file, io);
  return ExitCode.ok;
}

/**
 * Hands the page to $BROWSER or the platform's opener, and does not wait for it: a browser
 * that stays open must not hold the command. A missing opener is a warning, the page is written.
 */
function openInBrowser(file: string, io: CliIO): void {
  const [command, ...args] = io.env.BROWSER
    ? [io.env.BROWSER, file]
    : process.platform === "darwin"
      ? ["open", file]
      : process.platform === "win32"
        ? ["cmd", "/c", "start", "", file]
        : ["xdg-open", file];
  try {
    const child = spawn(command as string, args, { detached: true, stdio: "ignore" });
    child.on("error", (error) => io.stderr(`warning: could not open the page with ${command}: ${error.message}\n`));
    child.unref();
  } catch (error) {
    io.stderr(`warning: could not open the page with ${command}: ${(error as Error).message}\n`);
  }
}
