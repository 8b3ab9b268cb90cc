/**
 * The layers of src/ and scorers/, checked by `npm run check:imports` (part of `npm test`).
 * docs/architecture.md draws the same picture. Each rule says why it exists; a violation names
 * the importing file and the imported one.
 */
const CONTRACTS = "^src/contracts/";
const FOUNDATION = "^src/errors/";
// Functions of data: no file system, network, processes, SQLite or clock.
const PURE_CORE = [
  "^src/canonical/",
  "^src/journal/",
  "^src/keys/",
  "^src/redaction/",
  "^src/text/",
  "^src/patterns/",
  "^src/scoring/",
  "^scorers/",
  "^src/benchmarks/",
  "^src/policy/(match|rules|rate-limit|guardrails)\\.ts$",
  // Retrieval's tokenizer, chunking, BM25, filters and corpus; only load.ts and retriever.ts read files.
  "^src/retrieval/(tokenize|bm25|chunk|document|filter|corpus)\\.ts$",
];
const EFFECTFUL_MODULES = [
  "^(node:)?(fs|fs/promises|net|http|https|http2|dgram|dns|dns/promises|child_process|worker_threads|cluster|tls|readline|os|module|process|timers|timers/promises)$",
  "^(better-sqlite3|esbuild|tar|openai|@anthropic-ai/sdk|@mswjs/interceptors|msw|yaml)$",
];

module.exports = {
  forbidden: [
    {
      name: "contracts-depend-on-nothing",
      comment: "Contracts are types and schemas that every implementation is written against; they import only zod and each other.",
      severity: "error",
      from: { path: CONTRACTS },
      to: { pathNot: [CONTRACTS, "^zod$", "node_modules/zod/"] },
    },
    {
      name: "foundation-depends-on-nothing",
      comment: "The error module is imported by every layer, so it imports none of them.",
      severity: "error",
      from: { path: FOUNDATION },
      to: { pathNot: [FOUNDATION] },
    },
    {
      name: "pure-core-stays-pure",
      comment: "The pure core is functions of data: it may import contracts, errors and other pure modules, never an edge (store, provider, agent, tools, config, eval, cli).",
      severity: "error",
      from: { path: PURE_CORE },
      to: { path: "^(src|scorers)/", pathNot: [CONTRACTS, FOUNDATION, ...PURE_CORE] },
    },
    {
      name: "pure-core-has-no-effects",
      comment: "The pure core never reaches the file system, the network, processes, SQLite or an SDK.",
      severity: "error",
      from: { path: PURE_CORE },
      to: { dependencyTypes: ["core", "npm", "npm-dev", "npm-optional", "npm-peer", "npm-no-pkg", "npm-unknown"], path: EFFECTFUL_MODULES },
    },
    {
      name: "nothing-imports-the-cli",
      comment: "The CLI is the top of the stack: it wires everything and nothing depends on it.",
      severity: "error",
      from: { pathNot: "^src/cli/" },
      to: { path: "^src/cli/" },
    },
    {
      name: "no-circular-modules",
      comment: "Data flows one way; a circle (even through a dynamic import) hides a missing seam.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "no-deep-imports-into-providers",
      comment: "Outside providers/, a provider is reached through its folder's index.ts.",
      severity: "error",
      from: { path: "^(src|scorers)/", pathNot: "^src/providers/" },
      to: { path: "^src/providers/.+/(?!index\\.ts$)[^/]+$" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: { exportsFields: ["exports"], conditionNames: ["import", "require", "node", "default", "types"] },
    exclude: { path: "\\.test\\.ts$" },
  },
};
