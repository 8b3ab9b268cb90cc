/**
 * Where compiled code outlives the process: the folder the bundled runtime keeps its own V8
 * code cache in (src/runtime/load.cjs hands its reader and writer over, with the same checks:
 * a folder and files only this user may write, written whole or not at all). Retrace run from
 * its sources (under a test runner), or with RETRACE_CODE_CACHE=off, has none: its eval files
 * are then always modules.
 */
export interface CodeCacheStore {
  /** The bytes kept under `name`, or undefined (none, unreadable, or not to be trusted). */
  read(name: string): Buffer | undefined;
  /** Keeps `data` under `name`; false when it could not. */
  write(name: string, data: Buffer): boolean;
  /** Removes the entries whose names start with `prefix`, but `keep`. */
  forget(prefix: string, keep: string): void;
  /**
   * Of the entries whose names start with `prefix` and end with `suffix`, keeps those used last
   * (`usedHere` first: the entries this process read, whose times a relatime mount does not
   * move), at most `most` of them and `bytes` in all, and removes the rest.
   */
  bound(prefix: string, suffix: string, limits: CacheBound): void;
}

export interface CacheBound {
  most: number;
  bytes?: number;
  usedHere?: ReadonlySet<string>;
}

let store: CodeCacheStore | undefined;

/** Called once by the runtime's loader, when the cache is on. */
export function useCodeCache(given: CodeCacheStore): void {
  store = given;
}

export function codeCache(): CodeCacheStore | undefined {
  return store;
}
