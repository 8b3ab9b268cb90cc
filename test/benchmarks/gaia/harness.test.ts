import { cpSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { http, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GAIA_SYSTEM_PROMPT } from "../../../src/benchmarks/gaia/index.js";
import { loadGaia, runGaia, summariseGaia } from "../../../src/eval/benchmarks/gaia/index.js";
import { tempDir } from "../../helpers.js";

const fixture = join(import.meta.dirname, "../../../fixtures/gaia");

describe("GAIA data", () => {
  it("reads the layout, levels given as numbers or text, and text attachments", () => {
    const data = loadGaia(fixture);
    expect(data.problems).toEqual([]);
    expect(data.tasks.map((task) => [task.taskId, task.level])).toEqual([
      ["t-001", 1], ["t-002", 1], ["t-003", 2], ["t-004", 2], ["t-005", 3], ["t-006", 3],
    ]);
    expect(data.tasks[3]?.attachment).toMatchObject({ name: "prices.csv", shown: true, text: expect.stringContaining("cherries,14.90") });
    expect(data.tasks[4]?.attachment).toMatchObject({ name: "receipt.png", shown: false });
  });

  it("reports a bad row with its file and line, and still loads the others", () => {
    const dir = tempDir();
    cpSync(fixture, dir, { recursive: true });
    const file = join(dir, "2023/validation/metadata.jsonl");
    const good = (id: string) => JSON.stringify({ task_id: id, Question: "q", Level: 1, "Final answer": "1", file_name: "" });
    writeFileSync(file, [good("a"), "{not json", JSON.stringify({ task_id: "b", Question: "q", Level: 1 }), good("a"), JSON.stringify({ task_id: "c", Question: "q", Level: 1, "Final answer": "x", file_name: "../secret.txt" }), JSON.stringify({ task_id: "d", Question: "q", Level: 1, "Final answer": "x", file_name: "gone.txt" }), good("e")].join("\n"));
    const data = loadGaia(dir);
    expect(data.tasks.map((task) => task.taskId)).toEqual(["a", "e"]);
    expect(data.problems.map((problem) => problem.describe().replace(dir, "<dir>"))).toEqual([
      expect.stringMatching(/^<dir>\/2023\/validation\/metadata\.jsonl:2: not JSON/),
      "<dir>/2023/validation/metadata.jsonl:3: Final answer: Invalid input: expected string, received undefined",
      "<dir>/2023/validation/metadata.jsonl:4: task_id a repeats the row on line 1",
      '<dir>/2023/validation/metadata.jsonl:5: file_name "../secret.txt" points outside the data folder',
      expect.stringMatching(/^<dir>\/2023\/validation\/metadata\.jsonl:6: attachment "gone\.txt" is missing/),
    ]);
  });

  it("says where it looked when there is no metadata file", () => {
    expect(() => loadGaia(tempDir())).toThrow(/no GAIA metadata\.jsonl for split "validation"; looked for .*2023\/validation\/metadata\.jsonl/);
  });
});

describe("GAIA through the eval engine", () => {
  it("scores scripted replies per level, with the official scorer", async () => {
    const data = loadGaia(fixture);
    const replies = new Map([
      ["t-001", "FINAL ANSWER: 8"],
      ["t-002", "FINAL ANSWER: Sydney"],
      ["t-003", "FINAL ANSWER: 2; 3; 5"],
      ["t-004", "Final answer: Cherries"],
      ["t-005", "About $1,234.50"],
    ]);
    const results = await runGaia(data, { model: { kind: "scripted", replies, file: "replies.jsonl" } });
    expect(results.map((result) => [result.task_id, result.status])).toEqual([
      ["t-001", "correct"], ["t-002", "wrong"], ["t-003", "correct"], ["t-004", "correct"], ["t-005", "wrong"], ["t-006", "error"],
    ]);
    expect(results[4]).toMatchObject({ answer: null, branch: "number" });
    expect(results[5]?.error).toBe("replies.jsonl has no reply for task t-006");
    const summary = summariseGaia(data, results);
    expect(summary).toMatchObject({ entries: 6, correct: 3, errors: 1, accuracy: 0.5 });
    expect(summary.levels).toEqual([
      { level: 1, entries: 2, correct: 1, accuracy: 0.5 },
      { level: 2, entries: 2, correct: 2, accuracy: 1 },
      { level: 3, entries: 2, correct: 0, accuracy: 0 },
    ]);
  });

  describe("against a simulated OpenAI endpoint", () => {
    const server = setupServer();
    const requests: { system: string; user: string }[] = [];
    beforeAll(() => {
      server.listen({ onUnhandledRequest: "error" });
      server.use(
        http.post("https://api.openai.com/v1/chat/completions", async ({ request }) => {
          const body = (await request.json()) as { messages: { role: string; content: string }[] };
          const system = body.messages.find((message) => message.role === "system")?.content ?? "";
          const user = body.messages.find((message) => message.role === "user")?.content ?? "";
          requests.push({ system, user });
          // Right on spiders and the attached table, wrong elsewhere.
          const answer = user.includes("spider") ? "8" : user.includes("cherries,14.90") ? "cherries" : "I do not know";
          return HttpResponse.json({
            id: "chatcmpl-1",
            object: "chat.completion",
            created: 1_767_225_600,
            model: "gpt-sim",
            choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: `Thinking.\nFINAL ANSWER: ${answer}` } }],
            usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
          });
        }),
      );
    });
    afterAll(() => server.close());

    it("asks with GAIA's system prompt and the attachment, and scores the answers", async () => {
      const data = loadGaia(fixture);
      const results = await runGaia(data, { model: { kind: "live", llm: { provider: "openai", model: "gpt-sim" } }, env: { OPENAI_API_KEY: "sk-test-not-real" }, concurrency: 3 });
      expect(results.map((result) => result.status)).toEqual(["correct", "wrong", "wrong", "correct", "wrong", "wrong"]);
      expect(requests).toHaveLength(6);
      expect(new Set(requests.map((request) => request.system))).toEqual(new Set([GAIA_SYSTEM_PROMPT]));
      expect(requests.find((request) => request.user.includes("receipt.png"))?.user).toMatch(/cannot be shown here: a \.png file/);
      expect(summariseGaia(data, results).accuracy).toBeCloseTo(2 / 6);
    });
  });
});
