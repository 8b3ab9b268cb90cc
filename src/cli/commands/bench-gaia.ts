import { ExitCode } from "../exit-codes.js";
import type { CliIO } from "../io.js";

// Placeholder while the gaia benchmark is built on its branch; it says so rather than pretending.
export const benchGaiaHelp = "retrace bench gaia: not available in this build\n";

export function benchGaiaCommand(_argv: string[], io: CliIO): ExitCode {
  io.stderr(benchGaiaHelp);
  return ExitCode.usage;
}
