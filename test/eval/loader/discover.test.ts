/**
 * `retrace eval-test <folder>` finds the eval files under a folder: never inside node_modules or
 * a hidden folder (a project root holds thousands of entries there), and each file once, even
 * when a symbolic link leads back to a folder already walked.
 */
import { describe, expect, it } from "vitest";
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { findEvalFiles } from "../../../src/eval/loader/discover.js";
import { discoverEvalFiles } from "../../../src/eval/loader/index.js";
import { tempDir } from "../../helpers.js";
import { processes, retrace } from "../../cli/run-cli.js";

function files(root: string, paths: string[]): void {
  for (const path of paths) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), "");
  }
}

const shown = (root: string, found: string[]): string[] => found.map((path) => relative(root, path)).sort();

describe("eval file discovery", () => {
  it("finds each eval file once when links lead back to folders already walked", () => {
    const root = tempDir("retrace-discover-");
    files(root, ["eval/a.eval.mjs", "eval/sub/b.eval.ts", "eval/notes.md"]);
    symlinkSync(".", join(root, "eval/loop"), "dir");
    symlinkSync("..", join(root, "eval/sub/up"), "dir");
    const { files: found, errors } = discoverEvalFiles(["eval"], root);
    expect(errors).toEqual([]);
    expect(shown(root, found)).toEqual(["eval/a.eval.mjs", "eval/sub/b.eval.ts"]);
  });

  it("opens no node_modules or hidden folder, at any depth", () => {
    const root = tempDir("retrace-discover-");
    files(root, [
      "node_modules/pkg/x.eval.mjs",
      ".git/y.eval.mjs",
      ".hidden.eval.mjs",
      "eval/z.eval.js",
      "eval/deep/node_modules/w.eval.mjs",
      "eval/deep/.cache/v.eval.mjs",
      "eval/deep/u.eval.mts",
    ]);
    const opened: string[] = [];
    const found = findEvalFiles(root, (folder) => {
      opened.push(relative(root, folder) || ".");
      return readdirSync(folder, { withFileTypes: true });
    });
    expect(opened.sort()).toEqual([".", "eval", "eval/deep"]);
    expect(shown(root, found)).toEqual(["eval/deep/u.eval.mts", "eval/z.eval.js"]);
  });

  it("follows a link to a folder elsewhere, once however many links lead there", () => {
    const root = tempDir("retrace-discover-");
    const shared = tempDir("retrace-discover-shared-");
    files(shared, ["c.eval.mjs"]);
    files(root, ["eval/own.eval.mjs"]);
    symlinkSync(shared, join(root, "eval/shared"), "dir");
    symlinkSync(shared, join(root, "eval/again"), "dir");
    const found = shown(root, findEvalFiles(join(root, "eval")));
    expect(found).toHaveLength(2);
    expect(found).toContain("eval/own.eval.mjs");
    expect(found.filter((path) => path.endsWith("c.eval.mjs"))).toHaveLength(1);
  });

  it("lists a file reached by two paths once (a link, overlapping arguments): Node would load it once and find no cases the second time", () => {
    const root = tempDir("retrace-discover-");
    files(root, ["real/w.eval.mjs", "real/v.eval.mjs"]);
    mkdirSync(join(root, "linked"));
    symlinkSync(join(root, "real", "w.eval.mjs"), join(root, "linked", "w.eval.mjs"));
    const { files: found } = discoverEvalFiles(["real", "linked/w.eval.mjs", "real/v.eval.mjs"], root);
    expect(shown(root, found)).toEqual(["real/v.eval.mjs", "real/w.eval.mjs"]);
  });

  it("keeps a link to an eval file, and a dangling one, whose load then says what is wrong", () => {
    const root = tempDir("retrace-discover-");
    files(root, ["cases/real.eval.mjs"]);
    mkdirSync(join(root, "eval"));
    symlinkSync(join(root, "cases/real.eval.mjs"), join(root, "eval/linked.eval.mjs"));
    symlinkSync(join(root, "gone.eval.mjs"), join(root, "eval/dangling.eval.mjs"));
    symlinkSync(join(root, "gone"), join(root, "eval/gone-folder"));
    expect(shown(root, findEvalFiles(join(root, "eval")))).toEqual(["eval/dangling.eval.mjs", "eval/linked.eval.mjs"]);
  });

  it(
    "reports a dangling .eval.ts as not loaded and runs the other files (found in review: the hooks thread died, and the run with it, with no report)",
    async () => {
      const root = tempDir("retrace-discover-");
      symlinkSync(join(root, "nowhere.eval.ts"), join(root, "dangling.eval.ts"));
      writeFileSync(
        join(root, "fine.eval.mjs"),
        'import { defineEval } from "retrace";\ndefineEval({ name: "fine", config: { name: "t", llm: { provider: "openai" } }, mock: { responses: [{ text: "hi" }] }, test: async (t) => { await t.send("hi"); t.outputContains("hi"); } });\n',
      );
      const result = await retrace(["eval-test", root, "--mock"], { env: { RETRACE_CODE_CACHE: "off" } });
      expect(result.code, result.stdout + result.stderr).toBe(2);
      expect(result.stdout).toMatch(/dangling\.eval\.ts could not be loaded: .*ENOENT/);
      expect(result.stdout).toContain("1 passed");
    },
    processes(1),
  );
});
