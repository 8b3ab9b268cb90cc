import { nearest } from "../../text/index.js";
import { ExitCode } from "../exit-codes.js";
import type { CliIO } from "../io.js";

interface BenchModule {
  run(argv: string[], io: CliIO): Promise<ExitCode> | ExitCode;
  help: string;
}

// Each benchmark's module is loaded only when it runs: `retrace bench gaia` never loads BFCL.
const benchmarks: Record<string, () => Promise<BenchModule>> = {
  bfcl: async () => {
    const m = await import("./bench-bfcl.js");
    return { run: m.benchBfclCommand, help: m.benchBfclHelp };
  },
  gaia: async () => {
    const m = await import("./bench-gaia.js");
    return { run: m.benchGaiaCommand, help: m.benchGaiaHelp };
  },
};

export const benchHelp = `retrace bench <benchmark> [options]

Benchmarks: ${Object.keys(benchmarks).join(", ")}
Run "retrace bench <benchmark> --help" for its options.
`;

export async function benchCommand(argv: string[], io: CliIO): Promise<ExitCode> {
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h") {
    (name ? io.stdout : io.stderr)(benchHelp);
    return name ? ExitCode.ok : ExitCode.usage;
  }
  const load = Object.hasOwn(benchmarks, name) ? benchmarks[name] : undefined;
  if (!load) {
    const suggestion = nearest(name, Object.keys(benchmarks));
    io.stderr(`unknown benchmark "${name}"${suggestion ? ` (did you mean "${suggestion}"?)` : ""}\n\n${benchHelp}`);
    return ExitCode.usage;
  }
  const bench = await load();
  if (rest.includes("--help") || rest.includes("-h")) {
    io.stdout(bench.help);
    return ExitCode.ok;
  }
  return bench.run(rest, io);
}
