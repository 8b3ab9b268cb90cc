/**
 * Node's own import() of a module URL, for the user's modules (eval files, tool modules).
 *
 * Two hosts would otherwise change it: vitest rewrites import() calls in the files it runs, and
 * the package's bundled runtime (scripts/bundle.mjs) runs as a V8-cached script whose import()
 * has no loader behind it. The importer therefore lives in a data: module, which no host
 * rewrites; the bundle swaps this file for a plain CommonJS one that Node compiles itself.
 */
const NATIVE_IMPORTER = "data:text/javascript,export default (url) => import(url)";
let nativeImport: ((url: string) => Promise<unknown>) | undefined;

export async function importNative(url: string): Promise<unknown> {
  nativeImport ??= ((await import(NATIVE_IMPORTER)) as { default: (url: string) => Promise<unknown> }).default;
  return nativeImport(url);
}
