import { parseArgs, type ParseArgsConfig } from "node:util";
import { UsageError } from "../errors/index.js";
import { nearest } from "../text/index.js";

type Options = NonNullable<ParseArgsConfig["options"]>;

/** node:util parseArgs with errors that say which command was being parsed, and what was meant. */
export function parseCommandArgs<O extends Options>(
  command: string,
  argv: string[],
  options: O,
): ReturnType<typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>> {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") throw new UsageError(unknownOption(command, message, options));
    throw new UsageError(`${command}: ${message.replace(/^.*?: /, "")}`);
  }
}

/**
 * parseArgs' own text goes on about positional arguments after `--`, which is never what a
 * mistyped option needs: name the option, the nearest known one, and where the list is.
 */
function unknownOption(command: string, message: string, options: Options): string {
  const given = /^Unknown option '([^']*)'/.exec(message)?.[1] ?? message;
  const known = Object.entries(options).flatMap(([name, option]) => [`--${name}`, ...(option.short ? [`-${option.short}`] : [])]);
  const suggestion = nearest(given.replace(/=.*$/, ""), known);
  return `${command}: unknown option ${given}${suggestion ? ` (did you mean ${suggestion}?)` : ""}; see retrace ${command} --help`;
}
