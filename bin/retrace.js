#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

// `retrace runs | head` closes the pipe early; that is not an error worth a stack trace.
process.stdout.on("error", (error) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw error;
});

const args = process.argv.slice(2);
const usage = topLevelHelp(args);
if (usage !== undefined) {
  // As main answers them: the usage, exit code 0 when asked for, 2 when no command was given.
  process.stdout.write(usage);
  process.exitCode = args.length === 0 ? 2 : 0;
} else {
  // The bundled runtime (scripts/bundle.mjs), loaded through its code cache.
  const { main } = createRequire(import.meta.url)("../dist/runtime/load.cjs");
  process.exitCode = await main(args);
}

/**
 * The usage text for `retrace`, `retrace --help` (-h, help), which the build wrote beside the
 * runtime: printing it needs none of the runtime, whose loading is most of a start. Undefined
 * for any other command, or when the text is missing (then main prints it, as ever).
 */
function topLevelHelp(argv) {
  const [name] = argv;
  if (name !== undefined && name !== "--help" && name !== "-h" && name !== "help") return undefined;
  try {
    return readFileSync(new URL("../dist/runtime/usage.txt", import.meta.url), "utf8");
  } catch {
    return undefined;
  }
}
