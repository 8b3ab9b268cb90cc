import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../helpers.js";
import { processes, retrace } from "./run-cli.js";

interface Outcome {
  runId: string;
  status: string;
  output: string;
  pending?: { callId: string; tool: string; roles: string[] }[];
}

function sandbox() {
  const dir = tempDir();
  return { db: join(dir, "runs.db"), workspace: join(dir, "workspace"), env: { RETRACE_WORKSPACE: join(dir, "workspace") } };
}

const approval = ["examples/approval/agent.yaml", "--mock", "examples/approval/mock.yaml"];

describe("governance from the CLI, each step in its own process", () => {
  it("examples/approval: waits (exit 3), is approved by another process, and resumes to completion", async () => {
    const box = sandbox();
    const first = await retrace(["run", ...approval, "-m", "Note: ship the release", "--db", box.db, "--json"], { env: box.env });
    expect(first.code).toBe(3);
    const waiting = JSON.parse(first.stdout) as Outcome;
    expect(waiting).toMatchObject({ status: "waiting", pending: [{ callId: "call_1_1", tool: "write_file", roles: [] }] });
    expect(existsSync(join(box.workspace, "notes/todo.md"))).toBe(false);

    const approved = await retrace(["approve", waiting.runId, "call_1_1", "--db", box.db]);
    expect(approved).toMatchObject({ code: 0 });
    expect(approved.stdout).toContain(`resume with: retrace resume ${waiting.runId}`);

    const resumed = await retrace(["resume", waiting.runId, "--db", box.db, "--json"], { env: box.env });
    expect(resumed.code).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ runId: waiting.runId, status: "completed", output: "Saved your note to notes/todo.md." });
    expect(readFileSync(join(box.workspace, "notes/todo.md"), "utf8")).toBe("- ship the release\n");

    const trace = await retrace(["trace", waiting.runId, "--db", box.db, "--json"]);
    const types = trace.stdout.trim().split("\n").map((line) => (JSON.parse(line) as { type: string }).type);
    expect(types).toEqual([
      "run.started",
      "message",
      "llm.started",
      "llm.finished",
      "tool.requested",
      "approval.requested",
      "run.paused",
      "approval.granted",
      "run.resumed",
      "tool.started",
      "tool.finished",
      "llm.started",
      "llm.finished",
      "run.finished",
    ]);
  }, processes(4));

  it("approve and resume work from another folder: the run records where its config and mock are, and the hints carry --db", async () => {
    const box = sandbox();
    const elsewhere = tempDir();
    const first = JSON.parse((await retrace(["run", ...approval, "-m", "Note: x", "--db", box.db, "--json"], { env: box.env })).stdout) as Outcome;
    const approved = await retrace(["approve", first.runId, "call_1_1", "--db", box.db], { cwd: elsewhere });
    expect(approved.stdout).toContain(`approved call_1_1 (write_file); resume with: retrace resume ${first.runId} --db ${box.db}\n`);
    const resumed = await retrace(["resume", first.runId, "--db", box.db, "--json"], { cwd: elsewhere, env: box.env });
    expect(resumed.stderr).toBe("");
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: "completed", output: "Saved your note to notes/todo.md." });
    // Nothing is left to do, and resume says so rather than silently printing the answer again.
    const again = await retrace(["resume", first.runId, "--db", box.db], { cwd: elsewhere, env: box.env });
    expect(again).toMatchObject({ code: 0, stderr: `run ${first.runId} had already completed: nothing was left to do\n` });
  }, processes(4));

  it("a denial from another process blocks the call with approval_denied", async () => {
    const box = sandbox();
    const first = JSON.parse((await retrace(["run", ...approval, "-m", "x", "--db", box.db, "--json"], { env: box.env })).stdout) as Outcome;
    expect((await retrace(["approve", first.runId, "call_1_1", "--deny", "--reason", "not now", "--db", box.db])).code).toBe(0);
    await retrace(["resume", first.runId, "--db", box.db], { env: box.env });
    const trace = await retrace(["trace", first.runId, "--db", box.db]);
    expect(trace.stdout).toMatch(/tool\.blocked\s+write_file call_1_1 ⛔ approval_denied: denied by approver: not now/);
    expect(existsSync(join(box.workspace, "notes/todo.md"))).toBe(false);
  }, processes(4));

  it("refuses to approve a call that is not pending", async () => {
    const box = sandbox();
    const first = JSON.parse((await retrace(["run", ...approval, "-m", "x", "--db", box.db, "--json"], { env: box.env })).stdout) as Outcome;
    const wrongCall = await retrace(["approve", first.runId, "call_9_9", "--db", box.db]);
    expect(wrongCall.code).toBe(2);
    expect(wrongCall.stderr).toMatch(/no approval is pending for call call_9_9; pending: call_1_1 \(write_file\)/);
  });

  it("collects roles across processes, refusing a role that is not required and asking which role when several are missing", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "agent.yaml"), "name: x\nllm: {provider: openai}\ntools: [{name: write_file, requires_approval: [lead, security]}]\nworkspace: ./ws\n");
    writeFileSync(join(dir, "mock.yaml"), "responses:\n  - tool_calls: [{ name: write_file, arguments: { path: a.md, content: x } }]\n  - text: saved\n");
    const db = join(dir, "runs.db");
    const started = await retrace(["run", "agent.yaml", "--mock", "mock.yaml", "-m", "x", "--db", db], { cwd: dir });
    expect(started.code).toBe(3);
    const runId = /run (run_\w+) is waiting/.exec(started.stderr)?.[1] as string;
    // Each printed line is a command that works as it stands: one per role still needed.
    expect(started.stderr).toContain(`  retrace approve ${runId} call_1_1 --role lead --db runs.db    # write_file, roles still needed: lead, security\n`);
    expect(started.stderr).toContain(`  retrace approve ${runId} call_1_1 --role security --db runs.db\n`);

    const which = await retrace(["approve", runId, "call_1_1", "--db", db]);
    expect(which).toMatchObject({ code: 2, stderr: expect.stringMatching(/needs approval from lead and security: pass --role, e\.g\. retrace approve \S+ call_1_1 --role lead --db /) });
    const intern = await retrace(["approve", runId, "call_1_1", "--role", "intern", "--db", db]);
    expect(intern).toMatchObject({ code: 2, stderr: expect.stringMatching(/role intern is not required for call call_1_1 \(required: lead, security\)/) });
    const lead = await retrace(["approve", runId, "call_1_1", "--role", "lead", "--db", db]);
    expect(lead.stdout).toContain(`approved call_1_1 (write_file) as lead; still needed: security (retrace approve ${runId} call_1_1 --role security --db ${db})`);
    const stillWaiting = await retrace(["resume", runId, "--db", db], { cwd: dir });
    expect(stillWaiting.code).toBe(3);
    expect(stillWaiting.stderr).toContain(`  retrace approve ${runId} call_1_1 --role security --db runs.db    # write_file, roles still needed: security\n`);
    expect(stillWaiting.stderr).not.toContain("--role lead");
    // With one role left, --role may be omitted.
    expect((await retrace(["approve", runId, "call_1_1", "--db", db])).stdout).toMatch(/approved call_1_1/);
    expect(JSON.parse((await retrace(["resume", runId, "--db", db, "--json"], { cwd: dir })).stdout)).toMatchObject({ status: "completed" });
  }, processes(7));

  it("an approval after the deadline is refused and the call ends approval_expired", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "agent.yaml"), "name: x\nllm: {provider: openai}\ntools: [{name: write_file, requires_approval: true, approval_timeout: 0.001}]\nworkspace: ./ws\n");
    writeFileSync(join(dir, "mock.yaml"), "responses:\n  - tool_calls: [{ name: write_file, arguments: { path: a.md, content: x } }]\n  - text: it expired\n");
    const db = join(dir, "runs.db");
    const { runId } = JSON.parse((await retrace(["run", "agent.yaml", "--mock", "mock.yaml", "-m", "x", "--db", db, "--json"], { cwd: dir })).stdout) as Outcome;
    const late = await retrace(["approve", runId, "call_1_1", "--db", db]);
    expect(late.code).toBe(1);
    expect(late.stderr).toMatch(/approval for call call_1_1 expired at .*; the call will be blocked \(approval_expired\) on resume/);
    expect((await retrace(["approve", runId, "call_1_1", "--db", db])).stderr).toMatch(/has expired; resume the run/);
    await retrace(["resume", runId, "--db", db], { cwd: dir });
    expect((await retrace(["trace", runId, "--db", db])).stdout).toMatch(/tool\.blocked\s+write_file call_1_1 ⛔ approval_expired/);
    expect(existsSync(join(dir, "ws/a.md"))).toBe(false);
  }, processes(5));

  it("--approve prompt asks on the terminal; y approves", async () => {
    const box = sandbox();
    const result = await retrace(["run", ...approval, "-m", "x", "--db", box.db, "--approve", "prompt"], { env: box.env, input: "y\n" });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain("[y/N]");
    expect(existsSync(join(box.workspace, "notes/todo.md"))).toBe(true);
  });

  it("--approve prompt defaults to No", async () => {
    const box = sandbox();
    const result = await retrace(["run", ...approval, "-m", "x", "--db", box.db, "--approve", "prompt", "--json"], { env: box.env, input: "\n" });
    expect(result.code).toBe(0);
    expect(existsSync(join(box.workspace, "notes/todo.md"))).toBe(false);
  });

  it("examples/chat-mode: write_file is blocked with mode_blocked and no file is written", async () => {
    const box = sandbox();
    const result = await retrace(["run", "examples/chat-mode/agent.yaml", "--mock", "examples/chat-mode/mock.yaml", "-m", "save a note", "--db", box.db, "--json"], {
      env: box.env,
    });
    expect(result.code).toBe(0);
    const { runId } = JSON.parse(result.stdout) as Outcome;
    const trace = await retrace(["trace", runId, "--db", box.db, "--json"]);
    const blocked = trace.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; reason?: string; detail?: string })
      .find((event) => event.type === "tool.blocked");
    expect(blocked).toMatchObject({ reason: "mode_blocked", detail: "mode chat allows read-only tools only, and write_file is not read-only" });
    expect(existsSync(join(box.workspace, "notes.md"))).toBe(false);
  });
});

/** A parent whose `researcher` sub-agent needs approval to write its summary. */
function family(childCallId?: string): string {
  const dir = tempDir();
  const file = (name: string, text: string) => writeFileSync(join(dir, name), text);
  file("parent.yaml", "name: lead\nllm: {provider: openai}\nagents:\n  researcher: { config: ./child.yaml, mock: ./child-mock.yaml }\n");
  file("parent-mock.yaml", "responses:\n  - tool_calls: [{ name: researcher, arguments: { task: file the summary } }]\n  - text: filed\n");
  file("child.yaml", "name: researcher\nllm: {provider: openai}\ntools: [{ name: write_file, requires_approval: true }]\nworkspace: ./ws\n");
  const id = childCallId ? `id: ${childCallId}, ` : "";
  file("child-mock.yaml", `responses:\n  - tool_calls: [{ ${id}name: write_file, arguments: { path: summary.md, content: done } }]\n  - text: summary written\n`);
  return dir;
}

describe("sub-agents from the CLI", () => {
  it("a waiting child pauses the parent; approving and resuming the parent completes both with one child run", async () => {
    const dir = family();
    const db = join(dir, "runs.db");

    const first = await retrace(["run", "parent.yaml", "--mock", "parent-mock.yaml", "-m", "go", "--db", db, "--json"], { cwd: dir });
    expect(first.code).toBe(3);
    const waiting = JSON.parse(first.stdout) as Outcome & { childRunId: string };
    expect(waiting.childRunId).toBe(`${waiting.runId}.call_1_1`);

    // Approving on the parent points at the child run, with the command to use.
    const onParent = await retrace(["approve", waiting.runId, "call_1_1", "--db", db], { cwd: dir });
    expect(onParent.code).toBe(2);
    expect(onParent.stderr).toContain(
      `call call_1_1 (write_file) waits in the sub-agent's child run ${waiting.childRunId}, not in this run; approve it there: retrace approve ${waiting.childRunId} call_1_1 --db runs.db, then: retrace resume ${waiting.runId} --db runs.db`,
    );
    const approved = await retrace(["approve", waiting.childRunId, "call_1_1", "--db", db], { cwd: dir });
    expect(approved).toMatchObject({ code: 0, stdout: `approved call_1_1 (write_file); resume with: retrace resume ${waiting.runId} --db runs.db\n` });
    const resumed = await retrace(["resume", waiting.runId, "--db", db, "--json"], { cwd: dir });
    expect(JSON.parse(resumed.stdout)).toMatchObject({ status: "completed", output: "filed" });
    expect(readFileSync(join(dir, "ws/summary.md"), "utf8")).toBe("done");

    const runs = (await retrace(["runs", "--db", db, "--json"], { cwd: dir })).stdout.trim().split("\n");
    expect(runs).toHaveLength(2);
  }, processes(5));

  it("the child can be resumed on its own (its agent is found through the parent), then the parent", async () => {
    const dir = family("write_1");
    const db = join(dir, "runs.db");
    const waiting = JSON.parse((await retrace(["run", "parent.yaml", "--mock", "parent-mock.yaml", "-m", "go", "--db", db, "--json"], { cwd: dir })).stdout) as Outcome & {
      childRunId: string;
    };
    // The parent's own call id (the one that started the sub-agent) points at what waits in the child.
    const onParent = await retrace(["approve", waiting.runId, "call_1_1", "--db", db], { cwd: dir });
    expect(onParent).toMatchObject({ code: 2 });
    expect(onParent.stderr).toContain(
      `call call_1_1 runs a sub-agent, whose child run ${waiting.childRunId} waits for approval; approve there: retrace approve ${waiting.childRunId} write_1 --db runs.db    # write_file; then: retrace resume ${waiting.runId} --db runs.db`,
    );
    await retrace(["approve", waiting.childRunId, "write_1", "--db", db], { cwd: dir });
    const child = await retrace(["resume", waiting.childRunId, "--db", db, "--json"], { cwd: dir });
    expect(JSON.parse(child.stdout)).toMatchObject({ runId: waiting.childRunId, status: "completed", output: "summary written" });
    const parent = await retrace(["resume", waiting.runId, "--db", db, "--json"], { cwd: dir });
    expect(JSON.parse(parent.stdout)).toMatchObject({ status: "completed", output: "filed" });
    expect((await retrace(["runs", "--db", db, "--json"], { cwd: dir })).stdout.trim().split("\n")).toHaveLength(2);
  }, processes(6));
});
