/**
 * The four ways an outside test found past the --mock guard, each aimed at a loopback listener
 * that counts what reaches it: `new ChildProcess().spawn(...)`, a Worker made through
 * `Worker.prototype.constructor`, `process.binding("tcp_wrap")`, and a child process started
 * from a `setInterval` an eval file's top level set. Each is refused, and the listener hears
 * nothing.
 */
import { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NetworkBlockedError } from "../../src/errors/index.js";
import { runEvalSuite } from "../../src/eval/index.js";
import { caseScope, NetworkGuard, runInScope, suiteScope } from "../../src/sandbox/index.js";

let listener: net.Server;
let port = 0;
let connections = 0;
const dirs: string[] = [];

beforeAll(async () => {
  listener = net.createServer((socket) => {
    connections++;
    socket.end();
  });
  await new Promise<void>((resolve) => listener.listen(0, "127.0.0.1", resolve));
  port = (listener.address() as net.AddressInfo).port;
});
afterAll(() => {
  listener.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A script that connects to the listener, then exits (code 0 once connected). */
const connects = () => `require("net").connect(${port}, "127.0.0.1", function () { this.end(); process.exit(0); }).on("error", () => process.exit(3));`;

/** Runs `attempt` as a --mock case's code; returns what it threw (or resolved to). */
async function inGuardedCase(attempt: () => unknown): Promise<unknown> {
  const suite = suiteScope(true);
  const guard = new NetworkGuard(suite);
  guard.install();
  try {
    return await runInScope(caseScope(suite, "bypass"), async () => {
      try {
        return await attempt();
      } catch (error) {
        return error;
      }
    });
  } finally {
    guard.uninstall();
  }
}

const exited = (child: { on(event: "exit", listener: (code: number | null) => void): unknown }) => new Promise<number | null>((resolve) => child.on("exit", resolve));

describe("the --mock guard against the outside test's bypasses", () => {
  it("new ChildProcess().spawn({ file, args }) is refused", async () => {
    const before = connections;
    const outcome = await inGuardedCase(() => {
      // spawn() is the undocumented method under every child_process function.
      const child = new ChildProcess() as ChildProcess & { spawn(options: object): void };
      child.spawn({ file: process.execPath, args: [process.execPath, "-e", connects()], stdio: ["ignore", "ignore", "ignore"] });
      return exited(child);
    });
    expect(outcome).toBeInstanceOf(NetworkBlockedError);
    expect((outcome as NetworkBlockedError).target).toMatch(/^a child process \(ChildProcess\.spawn .*node/);
    expect(connections).toBe(before);
  });

  it("a Worker made through Worker.prototype.constructor is refused", async () => {
    const before = connections;
    const outcome = await inGuardedCase(() => {
      const Made = Worker.prototype.constructor as typeof Worker;
      return exited(new Made(connects(), { eval: true }));
    });
    expect(outcome).toBeInstanceOf(NetworkBlockedError);
    expect((outcome as NetworkBlockedError).target).toMatch(/^a worker thread/);
    expect(connections).toBe(before);
  });

  it('process.binding("tcp_wrap") is refused (a raw TCP handle cannot be intercepted)', async () => {
    const before = connections;
    const outcome = await inGuardedCase(
      () =>
        new Promise((resolve) => {
          const { TCP, TCPConnectWrap, constants } = (process as unknown as { binding(name: string): Record<string, new (...args: unknown[]) => Record<string, unknown>> & { constants: { SOCKET: number } } }).binding("tcp_wrap") as never as {
            TCP: new (type: number) => { connect(request: object, host: string, port: number): number; close(): void };
            TCPConnectWrap: new () => { oncomplete?: () => void };
            constants: { SOCKET: number };
          };
          const handle = new TCP(constants.SOCKET);
          const request = new TCPConnectWrap();
          request.oncomplete = () => {
            handle.close();
            resolve("connected");
          };
          handle.connect(request, "127.0.0.1", port);
        }),
    );
    expect(outcome).toBeInstanceOf(NetworkBlockedError);
    expect((outcome as NetworkBlockedError).target).toBe('process.binding("tcp_wrap")');
    expect(connections).toBe(before);
  });

  it("exec from a setInterval an eval file's top level started is refused and fails the suite", async () => {
    const dir = mkdtempSync(join(tmpdir(), "retrace-bypass-"));
    dirs.push(dir);
    const command = JSON.stringify(`"${process.execPath}" -e ${JSON.stringify(connects())}`);
    writeFileSync(
      join(dir, "sneaky.eval.ts"),
      `import { exec } from "node:child_process";
import { defineEval } from "retrace-agents";
const timer = setInterval(() => {
  clearInterval(timer);
  try { exec(${command}); } catch {}
}, 0);
defineEval({
  name: "innocent",
  config: { name: "t", llm: { provider: "openai" } },
  mock: { responses: [{ text: "hi" }] },
  test: async (t) => {
    await t.send("hi");
    await new Promise((resolve) => setTimeout(resolve, 5));
    t.completed();
  },
});
`,
    );
    const before = connections;
    const report = await runEvalSuite({ paths: [dir], cwd: dir, mode: "mock" });
    expect(report.errors.map((error) => error.message)).toEqual([expect.stringMatching(/^network request under --mock outside any case: a child process \(exec .*node/)]);
    expect(report.summary.exitCode).not.toBe(0);
    expect(connections).toBe(before);
  });
});
