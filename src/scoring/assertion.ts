/** How a scorer declares its assertion sugar (see AssertionSugar in the contracts). */
import type { AssertionSugar } from "../contracts/index.js";

/**
 * Declares a `t.<method>` for a registered scorer. Annotate `call`'s parameters: they are the
 * method's signature, e.g. `call: ([name]: [name: string], options: { times?: number }) => ...`.
 */
export function defineAssertion<const Positional extends readonly unknown[], Options extends object>(
  sugar: AssertionSugar<Positional, Options>,
): AssertionSugar<Positional, Options> {
  return Object.freeze({ ...sugar });
}
