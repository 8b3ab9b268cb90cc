// Scorers: values checked with built-in scorers, a registered custom scorer, an LLM judge
// (scripted under --mock; its call is a recorded run of its own), budgets and severities.
import { defineEval, defineScorer, match, registerScorer } from "retrace-agents";

const politeness = registerScorer(
  defineScorer<{ words?: string[] }>({
    name: "retrace-evals/politeness",
    description: "The answer says please or thank you.",
    score: ({ output, options }) => {
      const words = options.words ?? ["please", "thank"];
      const found = words.filter((word) => output.toLowerCase().includes(word));
      return found.length
        ? { value: 1, pass: true, reason: `polite: ${found.join(", ")}` }
        : { value: 0, pass: false, reason: `no polite word (${words.join(", ")})` };
    },
  }),
);

const weather = {
  responses: [{ text: '```json\n{"city": "Lisbon", "temperature_c": 21, "conditions": "sunny"}\n```' }],
};

defineEval({
  name: "scorers: structured output matches its JSON Schema",
  config: "./agents/calculator.yaml",
  mock: weather,
  tags: ["scorers"],
  test: async (t) => {
    await t.send("Weather in Lisbon as JSON.");
    t.check(
      t.reply,
      match.jsonSchema({
        type: "object",
        properties: { city: { type: "string" }, temperature_c: { type: "number" }, conditions: { enum: ["sunny", "cloudy", "rain"] } },
        required: ["city", "temperature_c", "conditions"],
      }),
    );
    const parsed = JSON.parse(t.reply.replace(/```(json)?/g, "")) as { temperature_c: number; city: string };
    t.check(parsed.temperature_c, match.numeric(20, { tolerance: 2 }));
    t.check(parsed.city, match.exact("lisbon", { caseSensitive: false }));
    t.check(parsed.city, (city: string) => city.length > 3);
  },
});

defineEval({
  name: "scorers: an LLM judge grades the answer against a rubric",
  config: "./agents/calculator.yaml",
  mock: "./mocks/calculator.yaml",
  tags: ["scorers", "judge"],
  test: async (t) => {
    await t.send("What is 17 times 23?");
    const verdict = await t.judge("llm-judge", {
      rubric: "The answer states the correct product of 17 and 23 (391) in one sentence.",
      expected: "391",
      includeToolCalls: true,
      mock: { responses: [{ text: '{"score": 0.9, "pass": true, "reason": "states 391 correctly and briefly"}' }] },
    });
    t.check(verdict.value, match.numeric(0.9, { tolerance: 0.001 }));
    t.check(verdict.status, "passed");
  },
});

defineEval({
  name: "scorers: a custom registered scorer, gate and soft",
  config: "./agents/calculator.yaml",
  mock: { responses: [{ text: "Thank you for asking! It is sunny." }] },
  tags: ["scorers"],
  test: async (t) => {
    await t.send("How is the weather?");
    await t.judge(politeness);
    await t.judge("retrace-evals/politeness", { label: "says sorry (soft: lowers the score only)", severity: "soft", words: ["sorry"] });
    t.check(t.reply, match.similar("Thanks for asking! It's sunny.", { method: "dice", min: 0.6 }));
  },
});

defineEval({
  name: "scorers: token and cost budgets",
  config: "./agents/calculator.yaml",
  mock: {
    responses: [
      { tool_calls: [{ name: "calculator", arguments: { expression: "3 * 3" } }], usage: { input_tokens: 120, output_tokens: 15 } },
      { text: "3 × 3 = 9.", usage: { input_tokens: 150, output_tokens: 10 } },
    ],
  },
  tags: ["scorers", "budgets"],
  test: async (t) => {
    await t.send("What is 3 times 3?");
    t.maxSteps(2);
    t.maxTokens(300);
    // 270 input tokens at $0.15/M and 25 output at $0.60/M (the config's made-up price): $0.0000555.
    t.maxCost(0.0001);
    t.check(t.usage.inputTokens, 270);
    t.check(t.run.cost, match.numeric(0.0000555, { tolerance: 1e-9 }));
  },
});

defineEval({
  name: "scorers: without a price, a cost budget is skipped, not passed",
  config: "../examples/hello/agent.yaml",
  mock: "../examples/hello/mock.yaml",
  tags: ["scorers", "budgets"],
  threshold: 0.9,
  test: async (t) => {
    await t.send("What is 2 + 2?");
    t.maxCost(0.01, { severity: "soft" });
    t.completed();
  },
});
