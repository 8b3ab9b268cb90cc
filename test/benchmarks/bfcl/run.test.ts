/**
 * A BFCL run end to end against a simulated model: a loopback OpenAI-compatible server that
 * answers some entries right and some wrong, in both modes; then the same run recorded to a
 * cassette and replayed with the server gone.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { benchBfclCommand } from "../../../src/cli/commands/bench-bfcl.js";
import { decodePrompting, pyJsonDumps, PyDict, type PyValue } from "../../../src/benchmarks/bfcl/index.js";
import { loadBfclData } from "../../../src/eval/benchmarks/bfcl/index.js";
import { tempDir } from "../../helpers.js";

const fixtures = new URL("../../../fixtures/bfcl/", import.meta.url).pathname;
const data = loadBfclData(join(fixtures, "v4"));
const gold = new Map(
  readFileSync(join(fixtures, "gold_model_results_v4.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { id: string; model_result_raw: string })
    .map((row) => [row.id, row.model_result_raw]),
);
// The server knows an entry by its last user message.
const byQuestion = new Map(data.entries.map((entry) => [entry.turns[0]?.filter((m) => m.role === "user").at(-1)?.content ?? "", entry]));

interface ChatRequest {
  messages: { role: string; content: string }[];
  tools?: unknown[];
}

/** Even-numbered entries are answered right, odd ones wrong. */
function answer(request: ChatRequest): { content: string | null; tool_calls?: unknown[] } {
  const question = request.messages.filter((m) => m.role === "user").at(-1)?.content ?? "";
  const entry = byQuestion.get(question);
  if (!entry) return { content: "unknown question" };
  const right = Number(/_(\d+)(?:-\d+)*$/.exec(entry.id)?.[1]) % 2 === 0;
  const fc = (request.tools?.length ?? 0) > 0;
  if (entry.category.includes("irrelevance")) {
    if (right) return { content: "None of the functions can answer that." };
    return fc ? { content: null, tool_calls: [call(0, "anything", "{}")] } : { content: "[anything(x=1)]" };
  }
  if (!right) return { content: fc ? "I would rather not." : "[not_a_function(x=1)]" };
  const text = gold.get(entry.id) as string;
  if (!fc) return { content: text };
  const calls = (decodePrompting(text) as PyDict[]).map((item, index) => {
    const [name, args] = item.entries().next().value as [PyValue, PyValue];
    return call(index, String(name).replace(/\./g, "_"), pyJsonDumps(args));
  });
  return { content: null, tool_calls: calls };
}

const call = (index: number, name: string, args: string): unknown => ({ id: `call_${index}`, type: "function", function: { name, arguments: args } });

let server: http.Server;
let baseUrl: string;
let requests = 0;
const bodies: ChatRequest[] = [];

beforeAll(async () => {
  server = http.createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")));
    request.on("end", () => {
      requests++;
      bodies.push(JSON.parse(body) as ChatRequest);
      const message = answer(JSON.parse(body) as ChatRequest);
      response.setHeader("content-type", "application/json");
      response.end(
        JSON.stringify({
          id: "chatcmpl-sim",
          object: "chat.completion",
          created: 0,
          model: "sim-model",
          choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: message.tool_calls ? "tool_calls" : "stop" }],
          usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
});

async function bench(args: string[], cwd: string, isTTY = false): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await benchBfclCommand(args, { stdout: (text) => (stdout += text), stderr: (text) => (stderr += text), env: {}, cwd, isTTY });
  return { code, stdout, stderr };
}

const categories = "simple_python,multiple,parallel,parallel_multiple,live_simple,irrelevance,multi_turn_base";

describe.each(["prompt", "fc"] as const)("retrace bench bfcl --mode %s against a simulated model", (mode) => {
  it("scores each category as the official checker would, and lists multi-turn as not supported", async () => {
    const dir = tempDir("retrace-bfcl-");
    bodies.length = 0;
    const { code, stdout } = await bench(["--data", join(fixtures, "v4"), "--model", "openai-compatible:sim-model", "--base-url", baseUrl, "--mode", mode, "--categories", categories, "--limit", "5", "--concurrency", "4", "-o", "results.jsonl", "--json"], dir);
    expect(code).toBe(0);
    const report = JSON.parse(stdout) as { categories: { category: string; correct: number; total: number }[]; not_supported: { category: string }[]; summary: Record<string, number | null> };
    // Entries 0, 2 and 4 of each category are answered right.
    expect(report.categories.map((score) => [score.category, score.correct, score.total])).toEqual([
      ["simple_python", 3, 5],
      ["multiple", 3, 5],
      ["parallel", 3, 5],
      ["parallel_multiple", 3, 5],
      ["live_simple", 3, 5],
      ["irrelevance", 3, 5],
    ]);
    expect(report.not_supported).toEqual([{ category: "multi_turn_base", entries: 3 }]);
    // Non-live AST: the mean of simple (itself the mean of python, java, javascript — two not run, so 0), multiple, parallel, parallel_multiple.
    expect(report.summary.nonLiveAst).toBeCloseTo((0.6 / 3 + 0.6 + 0.6 + 0.6) / 4, 12);
    expect(report.summary.live).toBeCloseTo(0.6, 12);
    const lines = readFileSync(join(dir, "results.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines).toHaveLength(30);
    expect(lines[0]).toMatchObject({ id: "simple_python_0", category: "simple_python", valid: true, error_type: null });
    expect(lines[1]).toMatchObject({ id: "simple_python_1", valid: false, error_type: mode === "fc" ? "ast_decoder:decoder_failed" : "simple_function_checker:wrong_func_name" });
    expect(lines.find((line) => line.id === "irrelevance_1")).toMatchObject({ valid: false, error_type: "irrelevance_error:decoder_success" });
    // What the model was sent for simple_python_0: BFCL's prompt byte for byte, or the entry's function as a tool.
    const first = bodies.find((body) => body.messages.some((m) => m.content.startsWith("Find the area of a triangle with a base of 10 units and height of 5 units")));
    if (mode === "prompt") {
      expect(first?.messages[0]).toEqual({ role: "system", content: readFileSync(join(fixtures, "default_system_prompt_simple_python_0.txt"), "utf8") });
      expect(first?.tools ?? []).toEqual([]);
    } else {
      expect(first?.messages.map((m) => m.role)).toEqual(["user"]);
      expect(first?.tools).toEqual([
        {
          type: "function",
          function: {
            name: "calculate_triangle_area",
            description: "Calculate the area of a triangle given its base and height. Note that the provided function is in Python 3 syntax.",
            parameters: {
              type: "object",
              properties: {
                base: { type: "integer", description: "The base of the triangle." },
                height: { type: "integer", description: "The height of the triangle." },
                unit: { type: "string", description: "The unit of measure (defaults to 'units' if not specified)" },
              },
              required: ["base", "height"],
            },
          },
        },
      ]);
    }
  });
});

describe("a recorded BFCL run", () => {
  it("replays offline, with the server gone, to a byte-identical results file", async () => {
    const dir = tempDir("retrace-bfcl-cassette-");
    const common = ["--data", join(fixtures, "v4"), "--model", "openai-compatible:sim-model", "--base-url", baseUrl, "--mode", "prompt", "--categories", "simple_python,parallel,live_simple,irrelevance", "--limit", "4", "--concurrency", "3"];
    const recorded = await bench([...common, "--record", "cassettes", "-o", "recorded.jsonl", "--json"], dir);
    expect(recorded.code).toBe(0);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const before = requests;
    const replayed = await bench([...common, "--replay", "cassettes", "-o", "replayed.jsonl", "--json"], dir);
    expect(replayed.stderr).toBe("");
    expect(replayed.code).toBe(0);
    expect(requests).toBe(before);
    expect(readFileSync(join(dir, "replayed.jsonl"), "utf8")).toBe(readFileSync(join(dir, "recorded.jsonl"), "utf8"));
    expect(replayed.stdout).toBe(recorded.stdout);
  });
});

describe("bad data", () => {
  it("names the file and line of a malformed line and of a question without an answer, and runs the rest", async () => {
    const dir = tempDir("retrace-bfcl-bad-");
    const dataDir = join(dir, "data");
    mkdirSync(join(dataDir, "possible_answer"), { recursive: true });
    const questions = readFileSync(join(fixtures, "v4/BFCL_v4_simple_python.json"), "utf8").split("\n").slice(0, 3);
    const answers = readFileSync(join(fixtures, "v4/possible_answer/BFCL_v4_simple_python.json"), "utf8").split("\n").slice(0, 2);
    writeFileSync(join(dataDir, "BFCL_v4_simple_python.json"), [questions[0], "{not json", questions[2]].join("\n") + "\n");
    writeFileSync(join(dataDir, "possible_answer/BFCL_v4_simple_python.json"), answers.join("\n") + "\n");
    const script = join(dir, "script.yaml");
    writeFileSync(script, `rules:\n  - when: { user_contains: "" }\n    respond: { text: "${(gold.get("simple_python_0") as string).replace(/"/g, '\\"')}" }\n`);
    const { code, stdout, stderr } = await bench(["--data", dataDir, "--model", `scripted:${script}`, "--mode", "prompt", "--json"], dir);
    expect(stderr).toContain("data/BFCL_v4_simple_python.json:2: not a BFCL question");
    expect(stderr).toContain("data/BFCL_v4_simple_python.json:3: no possible answer for simple_python_2");
    expect(code).toBe(2);
    const report = JSON.parse(stdout) as { categories: { category: string; correct: number; total: number }[] };
    expect(report.categories).toEqual([{ category: "simple_python", correct: 1, total: 1, accuracy: 1 }]);
  });
});

describe("on a terminal", () => {
  it("draws a progress bar on stderr and ends it with a newline", async () => {
    const dir = tempDir("retrace-bfcl-tty-");
    const script = join(dir, "script.yaml");
    writeFileSync(script, 'rules:\n  - when: { user_contains: "" }\n    respond: { text: "no call" }\n');
    const { code, stderr } = await bench(["--data", join(fixtures, "v4"), "--model", `scripted:${script}`, "--mode", "prompt", "--categories", "irrelevance", "--limit", "3"], dir, true);
    expect(code).toBe(0);
    expect(stderr).toContain("\r[##########--------------------] 1/3");
    expect(stderr.endsWith("] 3/3\n")).toBe(true);
  });
});
