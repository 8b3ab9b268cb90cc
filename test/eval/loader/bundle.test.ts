/**
 * TypeScript eval files run compiled one file at a time: their package imports resolve as
 * Node resolves them, and the stack frames of what they throw map back to their own lines.
 */
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { framePosition, loadEvalFiles } from "../../../src/eval/loader/index.js";
import { PACKAGE_NAME } from "../../../src/package-info.js";
import { root, tempDir } from "../cli-helpers.js";

/** A project folder with zod installed (Retrace itself resolves to the running copy). */
function project(files: Record<string, string>): string {
  const dir = tempDir();
  mkdirSync(join(dir, "node_modules"));
  symlinkSync(join(root, "node_modules", "zod"), join(dir, "node_modules", "zod"), "dir");
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

describe("TypeScript eval files", () => {
  it("keep their text: a string that says `from \"zod\"` stays as written", async () => {
    const quoted = `a string that says from "zod", import("zod") and export * from "zod"`;
    const dir = project({
      "strings.eval.ts": `import { defineEval } from "${PACKAGE_NAME}";
import { z } from "zod";
const name: string = ${JSON.stringify(quoted)};
defineEval({ name, config: { llm: { provider: "openai" } }, test: () => z.string().parse("ok") });
`,
    });
    const [loaded] = await loadEvalFiles([dir], dir);
    expect(loaded?.error).toBeUndefined();
    expect(loaded?.cases.map((definition) => definition.name)).toEqual([quoted]);
  });

  it("a frame of a compiled eval module points at the eval file's own line and column", async () => {
    const dir = project({
      "throws.eval.ts": `import { defineEval } from "${PACKAGE_NAME}";
import { z } from "zod";

type Answer = { text: string };

defineEval({
  name: "throws",
  config: { llm: { provider: "openai" } },
  test: () => {
    const answer: Answer = { text: z.string().parse("x") };
    if (answer.text) throw new Error("here");
  },
});
`,
    });
    const [loaded] = await loadEvalFiles([dir], dir);
    const error = await Promise.resolve()
      .then(() => loaded?.cases[0]?.test(undefined as never))
      .then(() => undefined, (thrown: unknown) => thrown as Error);
    const frames = (error?.stack ?? "").split("\n").slice(1).map(framePosition);
    expect(frames).toContainEqual({ file: join(dir, "throws.eval.ts"), line: 11, column: 28 });
  });
});
