#!/usr/bin/env node
import { createRequire } from "node:module";

// The bundled runtime (scripts/bundle.mjs), loaded through its code cache.
const { main } = createRequire(import.meta.url)("../dist/runtime/load.cjs");

// `retrace runs | head` closes the pipe early; that is not an error worth a stack trace.
process.stdout.on("error", (error) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw error;
});

process.exitCode = await main(process.argv.slice(2));
