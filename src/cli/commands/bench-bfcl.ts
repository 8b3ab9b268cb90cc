import { ExitCode } from "../exit-codes.js";
import type { CliIO } from "../io.js";

// Placeholder while the bfcl benchmark is built on its branch; it says so rather than pretending.
export const benchBfclHelp = "retrace bench bfcl: not available in this build\n";

export function benchBfclCommand(_argv: string[], io: CliIO): ExitCode {
  io.stderr(benchBfclHelp);
  return ExitCode.usage;
}
