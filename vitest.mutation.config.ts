import { defineConfig } from "vitest/config";
import { currentGroup, groups } from "./mutation.groups.mjs";

/**
 * The vitest config Stryker uses: only the tests of the group under mutation (MUTATION_GROUP),
 * so a mutant that is loaded at import time (a static mutant) reruns that group's tests, not
 * the whole suite.
 */
const group = currentGroup();

export default defineConfig({
  test: {
    include: group?.tests ?? groups.flatMap((candidate) => candidate.tests),
    testTimeout: 20_000,
    setupFiles: ["test/setup.ts"],
  },
});
