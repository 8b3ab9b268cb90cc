import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { loadConfig } from "../../config/index.js";
import { cassetteFile, configCassetteName } from "../cassette.js";
import { dirname, resolve, basename, join } from "node:path";
import { captureRun } from "../../bundle/index.js";
import { RunError, UsageError } from "../../errors/index.js";
import { parseCommandArgs } from "../args.js";
import { ExitCode } from "../exit-codes.js";
import type { CliIO } from "../io.js";
import { resolveRecorded } from "../recorded-paths.js";
import { openStore } from "../store.js";

export const captureHelp = `retrace capture <runId> -o <file.tgz> [options]

Packs a run, its child runs, its input, its agent config (secrets removed) and the files the
agent was built from into one bundle that replays with no key and no network. Capturing the
same run twice gives the same bytes.

Options:
  -o, --out <file.tgz>     where to write the bundle (required)
  --db <path>              run store (default .retrace/runs.db)
  --config <agent.yaml>    the agent's config, when the run does not record it
  --mock <script.yaml>     the mock script, when the run does not record it
  --cassette <file>        the cassette the run's model calls went through (default: the
                           config's cassette:, when the run was not a --mock run)
  --json                   print the manifest as JSON
`;

/** The cassette the config names (`cassette:`), when there is one on disk: the run's model calls went through it. */
function configuredCassette(config: string | undefined, env: CliIO["env"]): string | undefined {
  if (config === undefined) return undefined;
  const loaded = loadConfig(config, env);
  const configured = loaded.config.cassette;
  if (configured === undefined) return undefined;
  const location = resolve(loaded.baseDir, typeof configured === "string" ? configured : configured.path);
  const file = cassetteFile(location, configCassetteName(loaded.file));
  return existsSync(file) ? file : undefined;
}

export function captureCommand(argv: string[], io: CliIO): ExitCode {
  const { values, positionals } = parseCommandArgs("capture", argv, {
    out: { type: "string", short: "o" },
    db: { type: "string" },
    config: { type: "string" },
    mock: { type: "string" },
    cassette: { type: "string" },
    json: { type: "boolean", default: false },
  });
  const [runId, ...extra] = positionals;
  if (!runId) throw new UsageError("capture: missing <runId>\n\n" + captureHelp);
  if (extra.length) throw new UsageError(`capture: unexpected argument "${extra[0]}"`);
  if (!values.out) throw new UsageError("capture: missing -o <file.tgz>");
  const store = openStore(io.cwd, values.db, undefined, { mustExist: true });
  try {
    const first = store.read(runId, 1, 1)[0];
    if (first?.type !== "run.started") throw new RunError("run_not_found", `no such run in ${store.path}`, { runId });
    const recorded = (what: "config" | "mock"): string | undefined => {
      const given = values[what];
      if (given !== undefined) return resolve(io.cwd, given);
      const path = first.source?.[what];
      return path === undefined ? undefined : resolveRecorded(store.path, io.cwd, path, what, runId);
    };
    const config = recorded("config");
    const mock = recorded("mock");
    const cassette = values.cassette !== undefined ? resolve(io.cwd, values.cassette) : mock ? undefined : configuredCassette(config, io.env);
    const { bytes, manifest } = captureRun({
      store,
      runId,
      ...(config ? { config } : {}),
      ...(mock ? { mock } : {}),
      env: io.env,
      ...(cassette ? { cassette: readFileSync(cassette) } : {}),
    });
    const out = resolve(io.cwd, values.out);
    // Written beside its destination and renamed: a reader never sees half a bundle.
    const partial = join(dirname(out), `.${basename(out)}.partial`);
    writeFileSync(partial, bytes);
    renameSync(partial, out);
    if (values.json) io.stdout(`${JSON.stringify(manifest)}\n`);
    else io.stdout(`captured run ${runId} (${manifest.runs.length} run(s), ${Object.keys(manifest.entries).length + 1} entries, ${bytes.length} bytes) to ${values.out}\n`);
    return ExitCode.ok;
  } finally {
    store.close();
  }
}
