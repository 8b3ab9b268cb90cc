/**
 * The pure core, in the groups `npm run test:mutation` measures: each group's source files
 * (Stryker's `mutate`) and the tests that must catch their mutants on their own (`tests`).
 * Read by stryker.config.mjs, vitest.mutation.config.ts and scripts/mutation.mjs.
 */
export const groups = [
  {
    name: "canonical",
    label: "canonical JSON and digests",
    mutate: ["src/canonical/**/*.ts"],
    tests: ["test/canonical/**/*.test.ts"],
  },
  {
    name: "fold",
    label: "the fold and summaries",
    // The run view is a projection of the fold's state now, so it is measured with it.
    mutate: ["src/journal/fold.ts", "src/journal/summary.ts", "src/journal/run-view.ts"],
    tests: ["test/journal/**/*.test.ts"],
  },
  {
    name: "policy",
    label: "policy matching and globs",
    mutate: ["src/policy/match.ts", "src/policy/rules.ts", "src/patterns/**/*.ts"],
    tests: ["test/policy/**/*.test.ts", "test/patterns/**/*.test.ts"],
  },
  {
    name: "redaction",
    label: "redaction",
    mutate: ["src/redaction/**/*.ts", "src/providers/http/safe-cause.ts"],
    tests: ["test/redaction/**/*.test.ts"],
  },
  {
    name: "request-key",
    label: "request keys",
    mutate: ["src/keys/**/*.ts"],
    tests: ["test/keys/**/*.test.ts"],
  },
  {
    name: "scorers",
    label: "built-in scorers",
    mutate: ["scorers/**/*.ts"],
    // The retrieval and benchmark scorers are tested beside what they score.
    tests: ["test/eval/scorers*.test.ts", "test/eval/retrieval-scorers.test.ts", "test/benchmarks/bfcl/scorer.test.ts", "test/benchmarks/gaia/scorer.test.ts"],
  },
  {
    name: "scripted",
    label: "scripted model",
    mutate: ["src/providers/scripted/**/*.ts", "src/contracts/script.ts"],
    tests: ["test/scripted/**/*.test.ts"],
  },
];

/** The group named by MUTATION_GROUP (set by scripts/mutation.mjs for each Stryker run). */
export function currentGroup() {
  const name = process.env.MUTATION_GROUP;
  if (name === undefined) return undefined;
  const group = groups.find((candidate) => candidate.name === name);
  if (!group) throw new Error(`MUTATION_GROUP=${name} is not one of ${groups.map((candidate) => candidate.name).join(", ")}`);
  return group;
}
