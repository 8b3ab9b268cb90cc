import { parseArgs, type ParseArgsConfig } from "node:util";
import { UsageError } from "../errors/index.js";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** node:util parseArgs with errors that say which command was being parsed. */
export function parseCommandArgs<O extends Options>(
  command: string,
  argv: string[],
  options: O,
): ReturnType<typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>> {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(`${command}: ${(error as Error).message.replace(/^.*?: /, "")}`);
  }
}
