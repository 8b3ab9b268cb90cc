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
      name: "report-html-stays-pure",
      comment: "The HTML pages are functions of data (a report, a run's events): besides contracts and the pure core they read only the eval report's schema, never an edge.",
      severity: "error",
      from: { path: "^src/report-html/" },
      to: { path: "^(src|scorers)/", pathNot: [CONTRACTS, FOUNDATION, ...PURE_CORE, "^src/report-html/", "^src/eval/report/schema\\.ts$"] },
    },
    {
      name: "report-html-has-no-effects",
      comment: "A page is a string: the CLI reads the store and writes the file.",
      severity: "error",
      from: { path: "^src/report-html/" },
      to: { dependencyTypes: ["core", "npm", "npm-dev", "npm-optional", "npm-peer", "npm-no-pkg", "npm-unknown"], path: EFFECTFUL_MODULES },
    },
    {
      name: "nothing-imports-the-cli",
      comment: "The CLI is the top of the stack: it wires everything and nothing depends on it but the package's bundle entry, which holds every way in.",
      severity: "error",
      from: { pathNot: ["^src/cli/", "^src/package-entry\\.ts$"] },
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
      name: "bundles-know-nothing-of-replay",
      comment: "A bundle is a file format: capture and load it without the replay, the eval runner or the CLI (replay and evals build on bundles, not the reverse).",
      severity: "error",
      from: { path: "^src/bundle/" },
      to: { path: "^src/(replay|eval|cli|vitest)/" },
    },
    {
      name: "replay-sits-below-eval",
      comment: "Replay drives the agent on a bundle's recording; evals and the CLI use it, it uses neither.",
      severity: "error",
      from: { path: "^src/replay/" },
      to: { path: "^src/(eval|cli|vitest)/" },
    },
    {
      name: "cassette-is-a-wire-edge",
      comment: "Cassettes work on HTTP bytes, below any agent: they reach the pure core and the interception layer, never providers, agents, config, evals or stores, so every one of those can use them.",
      severity: "error",
      from: { path: "^src/cassette/" },
      to: { path: "^(src|scorers)/", pathNot: [CONTRACTS, FOUNDATION, ...PURE_CORE, "^src/cassette/", "^src/sandbox/"] },
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
