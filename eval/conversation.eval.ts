// Multi-turn conversations on one run, and input turns given with the case.
import { defineEval, match } from "retrace-agents";

defineEval({
  name: "conversation: remembers the earlier turn",
  config: "./agents/calculator.yaml",
  input: ["What is 6 times 7?"],
  mock: {
    responses: [
      { tool_calls: [{ name: "calculator", arguments: { expression: "6 * 7" } }] },
      { text: "6 × 7 = 42." },
      { tool_calls: [{ name: "calculator", arguments: { expression: "42 / 2" } }] },
      { text: "Half of that is 21." },
    ],
  },
  tags: ["conversation"],
  test: async (t) => {
    t.check(t.reply, match.numeric(42));
    await t.send("And half of that?");
    t.check(t.turns.map((turn) => turn.status), ["completed", "completed"]);
    t.check(t.reply, match.numeric(21));
    t.toolSequence([
      { name: "calculator", args: { expression: "6 * 7" } },
      { name: "calculator", args: { expression: "42 / 2" } },
    ]);
    // The second request carried the whole conversation: the model saw the first answer.
    const requests = t.events.filter((event) => event.type === "llm.started");
    const last = requests[requests.length - 1];
    t.check(last?.type === "llm.started" ? last.request.messages.length : 0, 7, { label: "the last request held all 7 messages" });
  },
});

defineEval({
  name: "conversation: the agent asks back, then answers",
  config: "./agents/calculator.yaml",
  mock: {
    rules: [
      { when: { user_contains: "convert" }, respond: { text: "Which currency should I convert to?" } },
      { when: { user_contains: "euro" }, respond: { text: "Please give me the amount in dollars first." } },
    ],
  },
  tags: ["conversation"],
  test: async (t) => {
    await t.send("Can you convert money?");
    // Assertions read the final log after the body; to check this turn's answer, check its value now.
    t.check(t.reply, /\?$/);
    await t.send("To euros.");
    t.completed();
    t.usedNoTools();
    t.outputContains("amount");
    t.outputMatches(/dollars first\.$/);
  },
});
