/** Finding and loading eval files: discovery, esbuild bundling of TypeScript, and the source maps that point errors back at the eval file's own lines. */
export { loadEvalFiles, discoverEvalFiles, displayPath, type LoadedFile, type LoadOptions } from "./load.js";
export { compileTypeScript, type Compiled, type Compilation } from "./bundle.js";
export { framePosition, originalPosition } from "./source-maps.js";
