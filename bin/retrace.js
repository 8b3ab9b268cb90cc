#!/usr/bin/env node
import { main } from "../dist/src/cli/main.js";

// `retrace runs | head` closes the pipe early; that is not an error worth a stack trace.
process.stdout.on("error", (error) => {
  if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw error;
});

process.exitCode = await main(process.argv.slice(2));
