import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "src/**/*.test.ts", "scorers/**/*.test.ts"],
    // Stryker's sandboxes (copies of the tests) and reports: `npm run test:mutation` only.
    exclude: [...configDefaults.exclude, ".stryker-tmp/**", "reports/**"],
    testTimeout: 20_000,
    pool: "forks",
    setupFiles: ["test/setup.ts"],
    reporters: ["default", "./test/summary-reporter.ts"],
  },
});
