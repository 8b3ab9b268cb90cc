/**
 * Retrace's vitest integration, given vitest's own functions rather than importing them: the
 * package's runtime is one CommonJS bundle (for its start-up, see scripts/bundle.mjs), vitest is
 * ESM-only, and the small ESM entry of `retrace-agents/vitest` hands vitest over here, so the
 * matchers and `useCassette` run on the same copy of Retrace as the user's other imports.
 */
import { retraceMatchers } from "./matchers.js";
import { useCassetteWith, type TestHooks, type UseCassetteOptions } from "./use-cassette.js";
import type { Cassette } from "../cassette/index.js";

export interface VitestApi extends TestHooks {
  expect: { extend(matchers: typeof retraceMatchers): void };
}

export function bindVitest(vitest: VitestApi): { useCassette: (options?: UseCassetteOptions) => { readonly current: Cassette | undefined } } {
  vitest.expect.extend(retraceMatchers);
  return { useCassette: (options) => useCassetteWith(vitest, options) };
}
