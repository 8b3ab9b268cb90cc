/** Finding and loading eval files: discovery, module hooks for TypeScript (esbuild, one file at a time, cached) and Retrace's own name, and the source maps that point errors back at the eval file's own lines. */
export { loadEvalFiles, discoverEvalFiles, displayPath, type LoadedFile, type LoadOptions } from "./load.js";
export { stopCompiler, useEvalHooks } from "./register.js";
export { framePosition, originalPosition } from "./source-maps.js";
