/**
 * The contract between a scorer and the eval DSL's `t`: a scorer may offer assertion sugar,
 * a `t.<method>(...positional, options?)` that records an assertion scored by it. The sugar
 * says which registered scorer scores it, how the method's arguments become the scorer's
 * options and expected value, and how the assertion reads in a report. The DSL adds what every
 * assertion has (severity, label) and never needs to know the scorer itself.
 */

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
  readonly call: (positional: Positional, options: Options) => AssertionCall;
}
