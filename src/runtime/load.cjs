"use strict";
/**
 * Loads the bundled runtime (retrace.cjs, beside this file) through a V8 code cache, so that a
 * command does not parse and compile two megabytes of JavaScript every time it starts: Node 20
 * has no compile cache of its own (module.enableCompileCache came in Node 22).
 *
 * The cache is one file per build, Node version and architecture, in a folder only this user
 * may write (checked before it is read: a cache is code; see cacheBase for where). It is
 * written when a process that found none exits, so it holds the functions that process ran.
 * V8 refuses a cache from other flags or another V8, and the file is then written again.
 * RETRACE_CODE_CACHE=off turns it off, RETRACE_CODE_CACHE=<folder> puts it there (a CI cache,
 * say); any failure to read or write it only costs the compile.
 */
const fs = require("node:fs");
const path = require("node:path");
const os = require("node:os");
const vm = require("node:vm");
const Module = require("node:module");

const STAMP = "__RETRACE_BUILD_STAMP__";
const file = path.join(__dirname, "retrace.cjs");
// The build keeps the bundle ASCII, so latin1 reads it as it is, without decoding UTF-8.
const source = fs.readFileSync(file, "latin1");

/**
 * node_modules/.cache/retrace-agents of the project that has Retrace installed (of the checkout
 * when it runs from one), the folder JavaScript tools keep caches in: it goes with the install,
 * and it leaves the temp directory — which some commands promise to leave as they found it —
 * alone. Elsewhere (a global install), the user's cache folder.
 */
function cacheBase() {
  const root = path.resolve(__dirname, "..", "..");
  const parent = path.dirname(root);
  if (path.basename(parent) === "node_modules") return path.join(parent, ".cache");
  if (fs.existsSync(path.join(root, "node_modules"))) return path.join(root, "node_modules", ".cache");
  if (process.platform === "win32") return process.env.LOCALAPPDATA;
  return process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache");
}

function cacheFolder() {
  const chosen = process.env.RETRACE_CODE_CACHE;
  if (chosen === "off") return undefined;
  try {
    const base = chosen ? undefined : cacheBase();
    if (!chosen && !base) return undefined;
    const folder = chosen ? path.resolve(chosen) : path.join(base, "retrace-agents");
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
    const stat = fs.lstatSync(folder);
    if (!stat.isDirectory()) return undefined;
    // A folder of another user's, or one others may write into, is not trusted with code.
    const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
    if (uid !== undefined && (stat.uid !== uid || (stat.mode & 0o022) !== 0)) return undefined;
    return folder;
  } catch {
    return undefined;
  }
}

const folder = cacheFolder();
const cacheFile = folder && path.join(folder, `${STAMP}-${process.version}-${process.arch}.v8`);
let cachedData;
if (cacheFile) {
  try {
    cachedData = fs.readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
}

/** Other builds' caches that nothing has read for a week (another project's Retrace may still use a newer one). */
function forgetOldBuilds() {
  const weekAgo = Date.now() - 7 * 24 * 3600 * 1000;
  for (const name of fs.readdirSync(folder)) {
    if (!name.endsWith(".v8") || name.startsWith(STAMP)) continue;
    const other = path.join(folder, name);
    if (fs.statSync(other).atimeMs < weekAgo) fs.rmSync(other, { force: true });
  }
}

const script = new vm.Script(Module.wrap(source), { filename: file, cachedData });
const wrapper = script.runInThisContext();
const runtime = { exports: {} };
wrapper.call(runtime.exports, runtime.exports, Module.createRequire(file), runtime, file, __dirname);
module.exports = runtime.exports;

if (cacheFile && (cachedData === undefined || script.cachedDataRejected)) {
  process.once("exit", () => {
    const partial = `${cacheFile}.${process.pid}.tmp`;
    try {
      fs.writeFileSync(partial, script.createCachedData(), { mode: 0o600 });
      fs.renameSync(partial, cacheFile);
      forgetOldBuilds();
    } catch {
      try {
        fs.rmSync(partial, { force: true });
      } catch {
        // nothing to clean
      }
    }
  });
}
