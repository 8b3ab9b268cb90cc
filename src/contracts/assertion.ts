/**
 * The contract between a scorer and the eval DSL's `t`: a scorer may offer assertion sugar,
 * a `t.<method>(...positional, options?)` that records an assertion scored by it. The sugar
 * says which registered scorer scores it, how the method's arguments become the scorer's
 * options and expected value, and how the assertion reads in a report. The DSL adds what every
 * assertion has (severity, label) and never needs to know the scorer itself.
 */
import type { ZodType } from "zod";

/**
 * The options a scorer or an assertion accepts, each with its schema. Declared so that a
 * mistyped option (`{ time: 5 }` for `{ times: 5 }`) is an error with a suggestion at the call,
 * not silently ignored: eval files are stripped, never type-checked.
 */
export type OptionShape<Options> = { readonly [Key in keyof Options]-?: ZodType };

/** What one call of an assertion method asks of its scorer. */
export interface AssertionCall {
  /** How the assertion reads in reports when the case gives no label. */
  readonly label: string;
  /** The scorer's options. */
  readonly options: Record<string, unknown>;
  /** The scorer's expected value, when it takes one. */
  readonly expected?: unknown;
}

/**
 * Sugar for a registered scorer. `Positional` are the method's leading arguments; `Options` is
 * the scorer-specific part of its last, optional argument (the DSL's own `severity` and `label`
 * are in that object too, and `call` ignores them).
 */
export interface AssertionSugar<Positional extends readonly unknown[], Options extends object> {
  /** The name the scorer is registered under. */
  readonly scorer: string;
  /** How many positional arguments come before the options object. */
  readonly arity: Positional["length"];
  /** Every scorer-specific option the method accepts (severity and label are the DSL's). */
  readonly options: OptionShape<NoInfer<Options>>;
  /** A problem with the positional arguments that makes the assertion check nothing (e.g. an empty text), or undefined. */
  readonly check?: (positional: Positional) => string | undefined;
  readonly call: (positional: Positional, options: Options) => AssertionCall;
}
