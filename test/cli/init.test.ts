/** `retrace init`: the scaffold's package.json must depend on Retrace and run it, and say what it did. */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { planPackageJson } from "../../src/cli/commands/init-package.js";
import { tempDir } from "../helpers.js";
import { retrace, root } from "./run-cli.js";

const version = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;

function readJson(file: string): Record<string, unknown> {
  return JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
}

describe.concurrent("retrace init", () => {
  it("writes a package.json that depends on retrace-agents and runs it, and says how to install it", async () => {
    const dir = join(tempDir(), "fresh");
    const init = await retrace(["init", dir]);
    expect(init.code).toBe(0);
    expect(readJson(join(dir, "package.json"))).toEqual({
      name: "retrace-evals",
      private: true,
      type: "module",
      scripts: { eval: "retrace eval-test --mock" },
      devDependencies: { "retrace-agents": `^${version}` },
    });
    expect(init.stdout).toMatch(/created\s+\S*package\.json/);
    expect(readFileSync(join(dir, "eval/agent.eval.ts"), "utf8")).toContain('from "retrace-agents"');
    // Run from this checkout, with nothing installed there: the first step installs the checkout.
    expect(init.stdout).toContain(`Next: cd ${dir} && npm install -D ${root} && npm run eval\n`);
  });

  it("says overwrote, not created, for the files --force replaced, and never overwrites package.json", async () => {
    const dir = join(tempDir(), "again");
    await retrace(["init", dir]);
    writeFileSync(join(dir, "package.json"), `${JSON.stringify({ name: "mine", private: true, type: "module", scripts: { eval: "retrace eval-test --mock" }, devDependencies: { "retrace-agents": "^9.9.9" } })}\n`);
    const kept = await retrace(["init", dir]);
    expect(kept.stdout).toMatch(/kept\s+\S*agent\.yaml \(exists; --force overwrites\)/);
    expect(kept.stdout).toMatch(/kept\s+\S*package\.json\n/);
    const forced = await retrace(["init", dir, "--force"]);
    expect(forced.code).toBe(0);
    for (const file of ["agent.yaml", "mock.yaml", "eval/agent.eval.ts"]) expect(forced.stdout).toMatch(new RegExp(`overwrote\\s+\\S*${file.replace(".", "\\.")}\\n`));
    expect(forced.stdout).not.toContain("created");
    expect(forced.stdout).toMatch(/kept\s+\S*package\.json\n/);
    expect(readJson(join(dir, "package.json"))).toMatchObject({ name: "mine", devDependencies: { "retrace-agents": "^9.9.9" } });
  });

  it("amends an existing package.json: adds what is missing, keeps the user's fields and indentation", async () => {
    const dir = tempDir();
    const mine = { name: "mine", version: "1.0.0", scripts: { test: "vitest", eval: "node my-evals.js" }, dependencies: { zod: "^4.0.0" } };
    writeFileSync(join(dir, "package.json"), `${JSON.stringify(mine, null, 4)}\n`);
    const init = await retrace(["init", dir]);
    expect(init.code).toBe(0);
    const text = readFileSync(join(dir, "package.json"), "utf8");
    expect(text).toBe(`${JSON.stringify({ ...mine, devDependencies: { "retrace-agents": `^${version}` } }, null, 4)}\n`);
    expect(init.stdout).toMatch(/updated\s+\S*package\.json \(added devDependencies\.retrace-agents\)/);
    expect(init.stdout).toContain(`its "eval" script is "node my-evals.js", kept; Retrace's would be "retrace eval-test --mock"`);
    // No "type": "module" here, so the eval file is .mts; and the eval script is not Retrace's.
    expect(init.stdout).toMatch(/created\s+\S*eval\/agent\.eval\.mts/);
    expect(init.stdout).toMatch(/Next: cd \S+ && npm install -D \S+ && npx retrace eval-test --mock\n/);
  });

  it("declares Retrace under the spec of the project that has it installed, and then only runs it", async () => {
    // A project with Retrace installed from a tarball, and a new eval folder inside it.
    const project = tempDir();
    writeFileSync(join(project, "package.json"), JSON.stringify({ devDependencies: { "retrace-agents": "file:../dl/retrace-agents-0.1.0.tgz" } }));
    mkdirSync(join(project, "node_modules", "retrace-agents"), { recursive: true });
    writeFileSync(join(project, "node_modules", "retrace-agents", "package.json"), JSON.stringify({ name: "retrace-agents", version: "0.1.0" }));
    const init = await retrace(["init", "evals"], { cwd: project });
    expect(init.code).toBe(0);
    expect(readJson(join(project, "evals", "package.json"))).toMatchObject({ devDependencies: { "retrace-agents": "file:../../dl/retrace-agents-0.1.0.tgz" } });
    // npm puts every ancestor's node_modules/.bin on a script's PATH, so the installed copy runs.
    expect(init.stdout).toContain("Next: cd evals && npm run eval\n");
  });
});

describe("planPackageJson", () => {
  it("leaves a package.json that is not a JSON object alone, saying what to add", () => {
    for (const text of ["{ not json", "[]"]) {
      const plan = planPackageJson(text, "^1.0.0");
      expect(plan).toEqual({ action: "keep", notes: [expect.stringContaining(`"devDependencies": { "retrace-agents": "^1.0.0" }`)] });
    }
  });

  it("adds nothing to fields that are not objects, and says so", () => {
    const plan = planPackageJson(JSON.stringify({ scripts: "nope", devDependencies: 3 }), "^1.0.0");
    expect(plan).toEqual({
      action: "keep",
      notes: [`its devDependencies is not an object; add "retrace-agents": "^1.0.0" by hand`, `its scripts is not an object; add "eval": "retrace eval-test --mock" by hand`],
    });
  });

  it("counts Retrace as declared in any dependency field", () => {
    const plan = planPackageJson(JSON.stringify({ dependencies: { "retrace-agents": "^0.1.0" } }), "^1.0.0");
    expect(plan).toMatchObject({ action: "update", added: ["scripts.eval"] });
  });
});
