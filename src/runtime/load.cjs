"use strict";
/**
 * Loads the bundled runtime (retrace.cjs, beside this file) through a V8 code cache, so that a
 * command does not parse and compile two megabytes of JavaScript every time it starts: Node 20
 * has no compile cache of its own (module.enableCompileCache came in Node 22).
 *
 * The cache is one file per build, Node version and architecture, in a folder only this user
 * may write (checked before it is read: a cache is code; see cacheBases for where). It is
 * written when a process that found none (or used more of the runtime than the one it found:
 * see WEIGHTS) exits, so it holds the functions that process ran.
 * V8 refuses a cache from other flags or another V8, and the file is then written again; a file
 * whose contents do not match the digest it starts with is no cache (see readCode).
 * RETRACE_CODE_CACHE=off turns it off, RETRACE_CODE_CACHE=<folder> puts it there (a CI cache,
 * say); any failure to read or write it only costs the compile.
 */
const fs = require("node:fs");
const path = require("node:path");
const os = require("node:os");
const vm = require("node:vm");
const crypto = require("node:crypto");
const Module = require("node:module");

const file = path.join(__dirname, "retrace.cjs");
/** The installed package (dist/runtime/ is two folders down). */
const packageRoot = path.resolve(__dirname, "..", "..");
const uid = typeof process.getuid === "function" ? process.getuid() : undefined;
// The build keeps the bundle ASCII, so latin1 reads it as it is, without decoding UTF-8. Its
// sha256 names the cache too (~0.9 ms for 1.6 MB): V8 checks a cache against the source's
// length only, so a same-length edit of the file (a hand fix, patch-package) would otherwise
// run old code. Its contents, not its size, time and inode as before: npm gives every file it
// extracts the same time, and `npm ci` extracts the bundle again, under a new inode, so a cache
// a CI job kept between runs (RETRACE_CODE_CACHE) was never the current one's.
// The bytes stay referenced for the life of the process (`bytes`, 1.6 MB): freeing a block
// this big raises glibc's mmap threshold, after which the memory V8 frees once it has compiled
// a big eval file stays with the allocator (50 MB more peak RSS for a 10,000-case file).
const { bytes, source, identity, builtMs } = (() => {
  const fd = fs.openSync(file, "r");
  try {
    const stat = fs.fstatSync(fd);
    const read = fs.readFileSync(fd);
    return { bytes: read, source: read.toString("latin1"), identity: crypto.createHash("sha256").update(read).digest("hex").slice(0, 24), builtMs: stat.mtimeMs };
  } finally {
    fs.closeSync(fd);
  }
})();
// Held by the module object, which require's cache keeps for the life of the process.
module.heldBundleBytes = bytes;

/**
 * Where this copy of Retrace is installed, as a short hash of its real path: two checkouts that
 * share one node_modules (a symlink) keep their caches apart instead of removing each other's.
 */
const place = (() => {
  let where = packageRoot;
  try {
    where = fs.realpathSync(packageRoot);
  } catch {
    // Kept as resolved.
  }
  let hash = 0x811c9dc5;
  for (let i = 0; i < where.length; i++) hash = Math.imul(hash ^ where.charCodeAt(i), 0x01000193);
  return `p${(hash >>> 0).toString(16).padStart(8, "0")}`;
})();

/** Whether a folder or file may be trusted with code: this user's, and not writable by others. */
function trusted(stat) {
  return uid === undefined || (stat.uid === uid && (stat.mode & 0o022) === 0);
}

/**
 * Where the cache may go, best first: node_modules/.cache/retrace-agents of the project that
 * has Retrace installed (of the checkout when it runs from one), the folder JavaScript tools
 * keep caches in — it goes with the install, and it leaves the temp directory, which some
 * commands promise to leave as they found it, alone; then the user's cache folder (a global
 * install, a node_modules this user may not write).
 */
function cacheBases() {
  const bases = [];
  const local = localFolder();
  if (local) bases.push(local);
  if (process.platform === "win32") {
    if (process.env.LOCALAPPDATA) bases.push(path.join(process.env.LOCALAPPDATA, "retrace-agents"));
  } else bases.push(path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), ".cache"), "retrace-agents"));
  return bases;
}

/** The install's own cache folder (node_modules/.cache/retrace-agents), when there is a node_modules. */
function localFolder() {
  const parent = path.dirname(packageRoot);
  if (path.basename(parent) === "node_modules") return path.join(parent, ".cache", "retrace-agents");
  if (fs.existsSync(path.join(packageRoot, "node_modules"))) return path.join(packageRoot, "node_modules", ".cache", "retrace-agents");
  return undefined;
}

function usableFolder(folder) {
  try {
    // The parents as any folder is made (other tools keep their caches beside ours); ours for this user only.
    fs.mkdirSync(path.dirname(folder), { recursive: true });
    try {
      fs.mkdirSync(folder, { mode: 0o700 });
    } catch (error) {
      if (error.code !== "EEXIST") throw error;
    }
    const stat = fs.lstatSync(folder);
    return stat.isDirectory() && trusted(stat);
  } catch {
    return false;
  }
}

function cacheFolder() {
  const chosen = process.env.RETRACE_CODE_CACHE;
  if (chosen === "off") return undefined;
  const candidates = chosen ? [path.resolve(chosen)] : cacheBases();
  return candidates.find(usableFolder);
}

/** The cache's bytes, read from the file it opened: a regular file of this user's that others cannot write (no symlink). */
function readCache(name) {
  let fd;
  try {
    fd = fs.openSync(name, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
    const stat = fs.fstatSync(fd);
    return stat.isFile() && trusted(stat) ? fs.readFileSync(fd) : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * A cache file is its contents' sha256 and then the contents: V8 checks a code cache's header
 * (its version, flags and source length), not its body, and a damaged body crashes the process
 * as it is read (SIGTRAP) — every start after, until the file goes. A file whose digest does not
 * match is no cache at all (~0.7 ms for a 1.3 MB cache).
 */
const DIGEST_BYTES = 32;
const digestOf = (data) => crypto.createHash("sha256").update(data).digest();

/** A cache's code, read as readCache reads a file; undefined when its digest does not match. */
function readCode(name) {
  const file = readCache(name);
  if (file === undefined || file.length < DIGEST_BYTES) return undefined;
  const data = file.subarray(DIGEST_BYTES);
  return digestOf(data).equals(file.subarray(0, DIGEST_BYTES)) ? data : undefined;
}

/** Writes a cache's code with its digest, as replaceFile writes a file. */
function replaceCode(target, data) {
  return replaceFile(target, Buffer.concat([digestOf(data), data]));
}

/**
 * How much of the runtime a process compiles, as a level: the CLI (2) and the library (1, and 1
 * more for the test doubles). A cache holds what the process that wrote it compiled, so one
 * written by `--version` or by the build serves an eval run poorly: a process that used more than
 * the cache it found writes a cache of its level, which later processes prefer.
 */
const WEIGHTS = { main: 2, api: 1, testing: 1, vitest: 1 };
/**
 * A process this old (seconds) may refresh a cache of its own level, when its cache would be
 * this much bigger (RETRACE_CODE_CACHE_REFRESH_AFTER_S changes the age, for tests).
 */
const REFRESH_AFTER_S = Number(process.env.RETRACE_CODE_CACHE_REFRESH_AFTER_S ?? 0.5);
const REFRESH_GROWTH = 1.25;
/**
 * Building a cache to learn its size costs ~20 ms, so a process asks only when it ran this many
 * times longer than the longest one that already asked about the cache (kept beside it, in
 * `<cache>.asked`; none when only its writer ran): a suite run again and again asks once, not
 * on every run, and a longer one still gets its turn.
 */
const ASK_AGAIN_AFTER = 2;
const MAX_LEVEL = 5;

const folder = cacheFolder();
const cacheBase = folder && path.join(folder, `${identity}-${place}-${process.version}-${process.arch}`);
const cacheAt = (level) => `${cacheBase}.L${level}.v8`;
let cachedData;
let cachedLevel = -1;
if (cacheBase) {
  for (let level = MAX_LEVEL; level >= 0 && cachedData === undefined; level--) {
    cachedData = readCode(cacheAt(level));
    if (cachedData !== undefined) cachedLevel = level;
  }
}

/**
 * Other builds' caches. Those this install made for this Node before its bundle was last built
 * are gone for good (a rebuild or an upgrade replaced the bundle they were made from) and are
 * removed at once, in any folder. Any other — another install's, another Node's (nvm), one a
 * newer build wrote while this process ran — only once nothing has read it for a week. A
 * temporary file a killed writer left goes after a day.
 */
function forgetOldBuilds() {
  const own = path.basename(cacheBase);
  const mine = `-${place}-`;
  const sameNode = `-${process.version}-${process.arch}.`;
  const now = Date.now();
  for (const name of fs.readdirSync(folder)) {
    const temporary = name.endsWith(".tmp");
    if ((!name.endsWith(".v8") && !name.endsWith(".v8.asked") && !temporary) || name.startsWith(`${own}.`)) continue;
    const other = path.join(folder, name);
    try {
      const stat = fs.statSync(other);
      const dead = name.includes(mine) && name.includes(sameNode) && stat.mtimeMs < builtMs;
      if (dead || stat.atimeMs < now - (temporary ? 1 : 7) * 24 * 3600 * 1000) fs.rmSync(other, { force: true });
    } catch {
      // Another process removed it first.
    }
  }
}

/** How long (seconds) the longest process that asked whether a cache should be refreshed ran; 0 when none did. */
function askedBefore(cache) {
  const text = readCache(`${cache}.asked`);
  const seconds = text === undefined ? 0 : Number(text.toString("latin1"));
  return Number.isFinite(seconds) && seconds > 0 ? seconds : 0;
}

/**
 * Writes a file whole or not at all: into a temporary file of this process, then renamed over
 * `target`. "wx": a file (or a link) already at the temporary name is never written through.
 * Any failure only leaves things as they were.
 */
function replaceFile(target, data) {
  const partial = `${target}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(partial, data, { mode: 0o600, flag: "wx" });
    fs.renameSync(partial, target);
    return true;
  } catch {
    try {
      fs.rmSync(partial, { force: true });
    } catch {
      // nothing to clean
    }
    return false;
  }
}

const script = new vm.Script(Module.wrap(source), { filename: file, cachedData });
const wrapper = script.runInThisContext();
const runtime = { exports: {} };
wrapper.call(runtime.exports, runtime.exports, Module.createRequire(file), runtime, file, __dirname);

// The same folder, checks and whole-file writes keep the compiled code of eval files run as
// scripts (src/eval/loader/script-load.ts): a suite run again is not compiled again.
if (folder && typeof runtime.exports.useCodeCache === "function") {
  runtime.exports.useCodeCache({
    read: (name) => readCode(path.join(folder, path.basename(name))),
    write: (name, data) => replaceCode(path.join(folder, path.basename(name)), data),
    forget: (prefix, keep) => {
      try {
        for (const name of fs.readdirSync(folder)) if (name.startsWith(prefix) && name !== keep) fs.rmSync(path.join(folder, name), { force: true });
      } catch {
        // Tidying is best effort.
      }
    },
    bound: (prefix, suffix, { most, bytes = Infinity, usedHere }) => {
      try {
        const entries = [];
        for (const name of fs.readdirSync(folder)) {
          if (!name.startsWith(prefix) || !name.endsWith(suffix)) continue;
          try {
            // Read (a hit) or written, whichever was last: relatime notes a read once a day, so
            // the entries this process read are named by the caller and come first.
            const stat = fs.statSync(path.join(folder, name));
            entries.push({ name, at: Math.max(stat.atimeMs, stat.mtimeMs), size: stat.size, here: usedHere?.has(name) === true });
          } catch {
            // Another process removed it.
          }
        }
        entries.sort((a, b) => Number(b.here) - Number(a.here) || b.at - a.at || (a.name < b.name ? -1 : 1));
        let kept = 0;
        let total = 0;
        for (const { name, size } of entries) {
          total += size;
          if (++kept <= most && total <= bytes) continue;
          fs.rmSync(path.join(folder, name), { force: true });
        }
      } catch {
        // Tidying is best effort.
      }
    },
  });
}

const used = new Set();
const parts = {};
for (const [name, part] of Object.entries(runtime.exports)) {
  parts[name] =
    typeof part === "function"
      ? (...args) => {
          used.add(name);
          return part(...args);
        }
      : part;
}
module.exports = parts;

if (cacheBase) {
  process.once("exit", () => {
    const level = Math.min(MAX_LEVEL, [...used].reduce((sum, name) => sum + (WEIGHTS[name] ?? 0), 0));
    const rejected = cachedData !== undefined && script.cachedDataRejected;
    let data;
    if (cachedData !== undefined && !rejected && level <= cachedLevel) {
      // The same parts, but a process that ran a while (a big suite) compiled many functions a
      // short one (a one-case eval, a failing test) never did: its cache replaces the one it
      // found when it holds clearly more. A short process never pays for asking.
      if (level < cachedLevel) return;
      // Sooner when the cache found is small beside the bundle (a full one is ~0.8 of it).
      const after = cachedData.length < source.length * 0.5 ? REFRESH_AFTER_S / 2 : REFRESH_AFTER_S;
      const ranS = process.uptime();
      if (ranS < after || ranS < ASK_AGAIN_AFTER * askedBefore(cacheAt(cachedLevel))) return;
      data = script.createCachedData();
      // This process ran at least twice as long as any that asked before: it is now the longest.
      if (data.length < cachedData.length * REFRESH_GROWTH) return void replaceFile(`${cacheAt(cachedLevel)}.asked`, String(ranS));
    }
    // A rejected cache (other flags, a damaged file) is replaced where it is, or it would be read first again.
    const target = cacheAt(rejected || data !== undefined ? Math.max(level, cachedLevel) : level);
    if (!replaceCode(target, data ?? script.createCachedData())) return;
    try {
      // A process that asked and refreshed the cache is the longest that asked about it. One
      // that wrote a cache without asking (none found, a lower level, a rejected one) did not
      // ask: the first long run after it must, or a one-case run that wrote the cache first
      // would leave a whole suite compiling lazily.
      if (data !== undefined) replaceFile(`${target}.asked`, String(process.uptime()));
      else fs.rmSync(`${target}.asked`, { force: true });
      for (let lower = 0; cacheAt(lower) !== target && lower <= MAX_LEVEL; lower++) {
        fs.rmSync(cacheAt(lower), { force: true });
        fs.rmSync(`${cacheAt(lower)}.asked`, { force: true });
      }
      forgetOldBuilds();
    } catch {
      // Tidying is best effort: the cache is written.
    }
  });
}
