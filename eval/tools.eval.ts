// Tool use: what was called, with which arguments, in which order — read from the run log.
import { defineEval, match } from "retrace-agents";

const calculator = "./agents/calculator.yaml";

defineEval({
  name: "tools: multiplies with the calculator",
  config: calculator,
  mock: "./mocks/calculator.yaml",
  tags: ["smoke", "tools"],
  test: async (t) => {
    await t.send("What is 17 times 23?");
    t.completed();
    t.calledToolWith("calculator", { expression: "17 * 23" }, { strict: true });
    t.notCalledTool("search_docs");
    t.outputMatches(/391/);
    t.check(t.reply, match.numeric(391, { tolerance: 0.5 }));
  },
});

defineEval({
  name: "tools: answers small talk without tools",
  config: calculator,
  mock: { responses: [{ text: "Hello! Ask me anything that needs arithmetic." }] },
  tags: ["smoke", "tools"],
  test: async (t) => {
    await t.send("Hi!");
    t.completed();
    t.usedNoTools();
    t.check(t.reply, match.similar("Hello! Ask me anything needing arithmetic.", { min: 0.8 }));
  },
});

defineEval({
  name: "tools: two calculations in order, then one in parallel",
  config: calculator,
  mock: {
    responses: [
      { tool_calls: [{ name: "calculator", arguments: { expression: "12 * 12" } }] },
      { tool_calls: [{ name: "calculator", arguments: { expression: "144 + 6" } }] },
      { text: "12 × 12 + 6 = 150." },
      {
        tool_calls: [
          { name: "calculator", arguments: { expression: "2 ^ 10" } },
          { name: "calculator", arguments: { expression: "10 % 3" } },
        ],
      },
      { text: "1024 and 1." },
    ],
  },
  tags: ["tools"],
  test: async (t) => {
    await t.send("What is 12 × 12 + 6?");
    t.toolSequence([{ name: "calculator", args: { expression: "12 * 12" } }, { name: "calculator", args: { expression: "144 + 6" } }], {
      label: "first turn: square, then add",
      allowExtra: true,
    });
    await t.send("And 2^10 and 10 mod 3?");
    t.toolSequence(
      [
        { name: "calculator", args: { expression: "10 % 3" } },
        { name: "calculator", args: { expression: "2 ^ 10" } },
      ],
      { ordered: false, allowExtra: true, label: "second turn: both, in any order" },
    );
    t.check(t.turns.length, 2);
    t.check(t.toolCalls.length, match.exact(4));
    t.outputContains(["1024", "1"]);
  },
});

defineEval({
  name: "tools: a tool that throws is a failed call, not a call",
  config: calculator,
  tools: { calculator: { throws: "the calculator is unplugged" } },
  mock: {
    responses: [
      { tool_calls: [{ name: "calculator", arguments: { expression: "1 + 1" } }] },
      { text: "Sorry, my calculator is unavailable right now." },
    ],
  },
  tags: ["tools", "faults"],
  test: async (t) => {
    await t.send("What is 1 + 1?");
    t.completed();
    t.notCalledTool("calculator");
    t.check(t.toolCalls[0]?.error?.message, /unplugged/);
    t.outputContains("unavailable");
  },
});

defineEval({
  name: "tools: a mocked tool result is what the model sees",
  config: calculator,
  tools: { calculator: { results: [{ value: 42 }] } },
  mock: {
    rules: [
      { when: { tool_result_contains: "42" }, respond: { text: "The answer is 42." } },
      { when: { user_contains: "meaning" }, respond: { tool_calls: [{ name: "calculator", arguments: { expression: "6 * 7" } }] } },
    ],
  },
  tags: ["tools"],
  test: async (t) => {
    await t.send("What is the meaning of life, computed?");
    t.calledToolWith("calculator", { expression: "6 * 7" });
    t.check(t.toolCalls[0]?.result, { value: 42 });
    t.outputContains("42");
  },
});

defineEval({
  name: "tools: retries a rate-limited provider and completes",
  config: calculator,
  mock: {
    responses: [
      { error: { status: 429, retry_after_ms: 2000 } },
      { text: "Done after a retry." },
    ],
  },
  tags: ["faults"],
  test: async (t) => {
    await t.send("Say done.");
    t.completed();
    // The retry is in the log: one failed attempt, then a finished one (no real waiting: the eval clock is virtual).
    const failedAttempts = t.events.filter((event) => event.type === "llm.failed");
    t.check(failedAttempts.length, 1);
    t.check(t.run.llmCalls, 2);
  },
});

defineEval({
  name: "tools: a provider that keeps failing fails the run",
  config: calculator,
  mock: { responses: [{ error: { status: 500 } }, { error: { status: 500 } }, { error: { status: 500 } }] },
  tags: ["faults"],
  test: async (t) => {
    const outcome = await t.send("Hello?");
    t.failed({ code: "provider_server" });
    t.check(outcome.status, "failed");
    t.usedNoTools();
  },
});

defineEval({
  name: "tools: the step limit stops a looping agent",
  config: { name: "looper", max_steps: 2, llm: { provider: "openai" }, tools: ["calculator"] },
  mock: { rules: [{ when: {}, respond: { tool_calls: [{ name: "calculator", arguments: { expression: "1 + 1" } }] } }] },
  tags: ["faults"],
  test: async (t) => {
    await t.send("Loop forever.");
    t.failed({ code: "max_steps" });
    t.calledTool("calculator", { times: 2 });
    t.maxSteps(2);
  },
});
