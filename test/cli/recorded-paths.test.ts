import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { recordPath, resolveRecorded } from "../../src/cli/recorded-paths.js";
import { UsageError } from "../../src/errors/index.js";
import { tempDir } from "../helpers.js";

describe("paths a run records for its config and mock", () => {
  it("are relative to the store's folder when near it, absolute when far", () => {
    expect(recordPath("/repo/.retrace/runs.db", "/repo/examples/approval/agent.yaml")).toBe("../examples/approval/agent.yaml");
    expect(recordPath("/repo/runs.db", "/repo/agent.yaml")).toBe("agent.yaml");
    expect(recordPath("/tmp/x/runs.db", "/repo/examples/agent.yaml")).toBe("/repo/examples/agent.yaml");
  });

  it("resolve against the store from any working directory, then against the cwd (runs recorded before), else name both places", () => {
    const repo = tempDir();
    mkdirSync(join(repo, "cfg"));
    writeFileSync(join(repo, "cfg/agent.yaml"), "name: x\n");
    const store = join(repo, ".retrace/runs.db");
    const recorded = recordPath(store, join(repo, "cfg/agent.yaml"));
    expect(resolveRecorded(store, tempDir(), recorded, "config", "r1")).toBe(join(repo, "cfg/agent.yaml"));
    // Recorded relative to the cwd of the original run, as earlier versions did.
    expect(resolveRecorded(join(tempDir(), "runs.db"), repo, "cfg/agent.yaml", "config", "r1")).toBe(join(repo, "cfg/agent.yaml"));
    const elsewhere = tempDir();
    expect(() => resolveRecorded(store, elsewhere, "gone.yaml", "mock", "r1")).toThrow(UsageError);
    expect(() => resolveRecorded(store, elsewhere, "gone.yaml", "mock", "r1")).toThrow(
      new RegExp(`run r1 was started with the mock gone\\.yaml, which is not in ${repo}/\\.retrace/gone\\.yaml or ${elsewhere}/gone\\.yaml; pass --mock <script\\.yaml>`),
    );
  });
});
