import { existsSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { UsageError } from "../errors/index.js";

/**
 * How a run records a file it was started with (its config, its mock): relative to the store's
 * folder, so that any working directory finds it through the store, and a project that moves
 * with its store keeps working. A file far from the store (more than one folder up) is recorded
 * absolute instead: a long climb of `..` would only hold on this machine anyway.
 */
export function recordPath(storePath: string, file: string): string {
  const fromStore = relative(dirname(storePath), file);
  if (fromStore === "" || isAbsolute(fromStore)) return file;
  const climbs = fromStore.split(sep).filter((part) => part === "..").length;
  return climbs > 1 ? file : fromStore.split(sep).join("/");
}

/**
 * Finds a recorded file: an absolute path as it is; a relative one against the store's folder
 * (how runs record it), then against the working directory (how earlier versions recorded it).
 */
export function resolveRecorded(storePath: string, cwd: string, recorded: string, what: "config" | "mock" | "cassette", runId: string): string {
  if (isAbsolute(recorded)) return recorded;
  const candidates = [resolve(dirname(storePath), recorded), resolve(cwd, recorded)];
  const found = candidates.find((candidate) => existsSync(candidate));
  if (found) return found;
  const flag = what === "config" ? "--config <agent.yaml>" : what === "mock" ? "--mock <script.yaml>" : "--cassette-mode live (to go without it)";
  throw new UsageError(
    `run ${runId} was started with the ${what} ${recorded}, which is not in ${[...new Set(candidates)].join(" or ")}; pass ${flag}`,
  );
}
