import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BuiltinToolError, builtinToolNames, createBuiltinTool } from "../../src/tools/builtin/index.js";
import { editDistance } from "../../src/text/index.js";

let workspace: string;

beforeAll(async () => {
  workspace = await mkdtemp(path.join(tmpdir(), "retrace-builtin-"));
});

afterAll(async () => {
  await rm(workspace, { recursive: true, force: true });
});

describe("createBuiltinTool", () => {
  it("creates every built-in tool by its name", () => {
    const tools = builtinToolNames.map((name) => createBuiltinTool(name, { workspace, documents: [{ source: "a", text: "a" }] }));
    expect(tools.map((tool) => tool.name)).toEqual(["calculator", "read_file", "list_dir", "write_file", "search_docs"]);
  });

  it("suggests the nearest name for a typo", () => {
    expect(() => createBuiltinTool("calculater")).toThrow('unknown built-in tool "calculater"; did you mean "calculator"?');
    expect(() => createBuiltinTool("readfile")).toThrow(/did you mean "read_file"\?/);
  });

  it("lists the built-in tools when nothing is close", () => {
    const error = (() => {
      try {
        createBuiltinTool("browser");
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(BuiltinToolError);
    expect(error).toMatchObject({
      code: "tool_unknown",
      message: 'unknown built-in tool "browser" (built-in tools: calculator, read_file, list_dir, write_file, search_docs)',
    });
  });

  it("says what a tool needs when it is missing", () => {
    expect(() => createBuiltinTool("write_file")).toThrow(expect.objectContaining({ code: "tool_config", message: expect.stringMatching(/needs "workspace"/) }));
    expect(() => createBuiltinTool("search_docs", { workspace })).toThrow(/needs "documents"/);
  });
});

describe("editDistance", () => {
  it("counts single-character edits", () => {
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(editDistance("", "abc")).toBe(3);
  });
});
