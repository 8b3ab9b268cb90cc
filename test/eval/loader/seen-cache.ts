import { useCodeCache } from "../../../src/runtime/index.js";

/**
 * For tests that load eval files from Retrace's sources, which have no code cache (so every
 * file would be a module): a cache that has seen every text and keeps nothing, so that a file
 * a script can run runs as one at once (see script-load.ts).
 */
export function useCacheThatSawEveryText(): void {
  useCodeCache({
    read: (name) => (name.endsWith(".seen.v8") ? Buffer.alloc(0) : undefined),
    write: () => true,
    forget: () => undefined,
    bound: () => undefined,
  });
}
