// Lint is kept to what the type checker cannot say on its own: a promise nobody awaits or
// handles is an error that vanishes (or an unhandled rejection that kills an eval run later).
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "fixtures/**", "coverage/**", "reports/**", ".stryker-tmp/**"] },
  {
    files: ["src/**/*.ts", "scorers/**/*.ts"],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { "@typescript-eslint": tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-explicit-any": "error",
      "no-control-regex": "error",
      "@typescript-eslint/no-empty-object-type": "error",
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: { arguments: false, attributes: false } }],
    },
  },
);
