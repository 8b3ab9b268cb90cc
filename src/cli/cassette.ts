/**
 * The cassette flags `retrace run` and `retrace eval-test` share: --record <dir>, --replay <dir>,
 * --cassette-mode <mode>, --timing <instant|recorded|factor>, and what they turn into.
 */
import { basename, extname, join, resolve } from "node:path";
import type { Cassette, CassetteSummary, CassetteTiming } from "../cassette/index.js";
import { CASSETTE_MODES, type CassetteMode } from "../cassette/modes.js";
import { UsageError } from "../errors/index.js";
import type { LoadedConfig } from "../config/index.js";
import { PROVIDER_KEY_VARIABLES } from "../redaction/index.js";
import { shellWord } from "../text/index.js";

export const CASSETTE_FLAGS = {
  record: { type: "string" },
  replay: { type: "string" },
  "cassette-mode": { type: "string" },
  timing: { type: "string" },
} as const;

export interface CassetteFlagValues {
  record?: string | undefined;
  replay?: string | undefined;
  "cassette-mode"?: string | undefined;
  timing?: string | undefined;
}

export const CASSETTE_HELP = `Cassettes (recorded HTTP traffic, docs/cassettes.md):
  --record <dir>         call the provider and record every exchange to a cassette in <dir>
  --replay <dir>         answer from the cassette in <dir>: no key, no network; a request it
                         does not hold fails and shows the nearest recorded one
  --cassette-mode <m>    live, record, auto (serve what is recorded, record the rest), replay or update
  --timing <t>           replayed streams: instant (default), recorded, or a factor of the recorded pacing (0.5)
`;

export function parseCassetteMode(command: string, text: string): CassetteMode {
  if ((CASSETTE_MODES as readonly string[]).includes(text)) return text as CassetteMode;
  throw new UsageError(`${command}: --cassette-mode must be one of ${CASSETTE_MODES.join(", ")}, got "${text}"`);
}

export function parseTiming(command: string, text: string | undefined): CassetteTiming | undefined {
  if (text === undefined) return undefined;
  if (text === "instant" || text === "recorded") return text;
  const factor = /^(?:\d+(?:\.\d*)?|\.\d+)$/.test(text) ? Number(text) : NaN;
  if (!(factor > 0) || !Number.isFinite(factor)) throw new UsageError(`${command}: --timing must be instant, recorded or a positive factor (0.5), got "${text}"`);
  return factor;
}

/** The flags as one choice: where the cassettes are (a folder or a file) and the mode; undefined when no flag was given. */
export function cassetteFlags(command: string, values: CassetteFlagValues, cwd: string): { location: string | undefined; mode: CassetteMode | undefined; timing: CassetteTiming | undefined } | undefined {
  if (values.record !== undefined && values.replay !== undefined) throw new UsageError(`${command}: choose --record or --replay, not both`);
  const location = values.record ?? values.replay;
  const mode = values["cassette-mode"] !== undefined ? parseCassetteMode(command, values["cassette-mode"]) : values.record !== undefined ? "record" : values.replay !== undefined ? "replay" : undefined;
  const timing = parseTiming(command, values.timing);
  if (location === "") throw new UsageError(`${command}: --${values.record !== undefined ? "record" : "replay"} needs a folder`);
  if (location === undefined && mode === undefined && timing === undefined) return undefined;
  return { location: location === undefined ? undefined : resolve(cwd, location), mode, timing };
}

/** A location that names a .json file is the cassette; a folder holds `<name>.cassette.json`. */
export function cassetteFile(location: string, name: string): string {
  return extname(location) === ".json" ? location : join(location, `${name}.cassette.json`);
}

/** The cassette name a config records to: its file name without the extension. */
export function configCassetteName(configFile: string): string {
  return basename(configFile, extname(configFile));
}

/** Named secrets a cassette must never hold: the config's API key and the provider variables. */
export function cassetteSecrets(loaded: LoadedConfig | undefined, env: Readonly<Record<string, string | undefined>>): Record<string, string | undefined> {
  const secrets: Record<string, string | undefined> = {};
  for (const name of PROVIDER_KEY_VARIABLES) secrets[name] = env[name];
  if (loaded?.config.llm.api_key) secrets["the configured API key (llm.api_key)"] = loaded.config.llm.api_key;
  (loaded?.secrets ?? []).forEach((value, index) => {
    secrets[`a secret the config refers to (#${index + 1})`] = value;
  });
  return secrets;
}

/**
 * The cassette a `retrace run` uses: the flags, else the config's `cassette:`; undefined for
 * none (or mode live). The flags override the config's location and mode.
 */
export async function runCassette(command: string, flags: ReturnType<typeof cassetteFlags>, loaded: LoadedConfig, env: Readonly<Record<string, string | undefined>>): Promise<Cassette | undefined> {
  const configured = loaded.config.cassette;
  const fromConfig = configured === undefined ? undefined : typeof configured === "string" ? { path: configured, mode: "replay" as const, ignore_body_fields: [], redact: [] } : configured;
  const location = flags?.location ?? (fromConfig ? resolve(loaded.baseDir, fromConfig.path) : undefined);
  const mode = flags?.mode ?? fromConfig?.mode;
  if (!flags && !fromConfig) return undefined;
  if (location === undefined) throw new UsageError(`${command}: --cassette-mode and --timing need a cassette: --record <dir>, --replay <dir>, or cassette: in the config`);
  if (mode === "live") return undefined;
  const timing = flags?.timing ?? fromConfig?.timing;
  // The cassette machinery (and the interceptors under it) loads only for a run that uses one.
  const { Cassette, ignoreBodyField } = await import("../cassette/index.js");
  const redact = [...(fromConfig?.redact ?? []), ...(loaded.config.guardrails?.output.redact ?? [])].map((pattern) => new RegExp(pattern, "giu"));
  return Cassette.open(cassetteFile(location, configCassetteName(loaded.file)), {
    mode: mode ?? "replay",
    ...(timing !== undefined ? { timing } : {}),
    ...(fromConfig?.ignore_body_fields.length ? { normalise: fromConfig.ignore_body_fields.map(ignoreBodyField) } : {}),
    ...(redact.length ? { redact } : {}),
    secrets: cassetteSecrets(loaded, env),
    recordHint: `record it with: retrace ${command} ${shellWord(loaded.file)} … --record ${shellWord(location)} (or --cassette-mode auto to record only what is missing)`,
  });
}

/** After a replay: the recorded requests the run never made, on stderr. */
export function reportUnused(summary: CassetteSummary, stderr: (text: string) => void): void {
  if (summary.unused.length === 0 || (summary.mode !== "replay" && summary.mode !== "auto")) return;
  const count = summary.unused.length;
  stderr(`cassette ${summary.file}: ${count} recorded request${count === 1 ? " was" : "s were"} not used:\n`);
  for (const entry of summary.unused) stderr(`  ${entry.entry}  ${entry.method} ${entry.url}${entry.ordinal ? ` (call ${entry.ordinal + 1})` : ""}\n`);
}
