// @ts-check
/**
 * Mutation testing of the pure core: `npm run test:mutation` (scripts/mutation.mjs) runs Stryker
 * once per group of mutation.groups.mjs, with MUTATION_GROUP naming the group, so that each
 * group is measured with its own tests only.
 *
 * Equivalent mutants (changes no test can observe) are not listed here but next to the code, as
 * `// Stryker disable next-line <mutator>: <reason>` comments, so the reason sits where a
 * reader of the code sees it.
 */
import { currentGroup, groups } from "./mutation.groups.mjs";

const group = currentGroup();
const name = group?.name ?? "all";

// The tests of a group are chosen by vitest.mutation.config.ts (its include), not by Stryker's
// `testFiles`: with `testFiles`, Stryker 9.6.1 activates static mutants (values built when a
// module loads) after the module has loaded, so they all survive falsely
// (stryker-mutator/stryker-js#6144).
/** @type {import("@stryker-mutator/api/core").PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  vitest: { configFile: "vitest.mutation.config.ts" },
  coverageAnalysis: "perTest",
  // The machine is shared: never more than two test workers.
  concurrency: 2,
  mutate: group?.mutate ?? groups.flatMap((candidate) => candidate.mutate),
  reporters: ["clear-text", "json"],
  clearTextReporter: { allowColor: false, logTests: false, reportTests: false },
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  thresholds: { high: 90, low: 85, break: null },
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always",
  // Only what the tests need is copied to the sandbox.
  ignorePatterns: ["/dist", "/reports", "/bench", "/docs", "/examples", "/eval", "/.ci", "*.log"],
  timeoutMS: 10000,
};
