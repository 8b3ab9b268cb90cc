// The quickstart agent (examples/hello) under its own mock script.
import { defineEval, match } from "retrace-agents";

defineEval({
  name: "hello: uses the calculator for arithmetic",
  config: "../examples/hello/agent.yaml",
  mock: "../examples/hello/mock.yaml",
  tags: ["smoke", "hello"],
  test: async (t) => {
    await t.send("What is 2 + 2?");
    t.completed();
    t.calledTool("calculator", { times: 1 });
    t.calledToolWith("calculator", { expression: "2 + 2" });
    t.check(t.reply, match.numeric(4));
    t.outputContains("4");
  },
});

defineEval({
  name: "hello: the calculator's result is what the model saw",
  config: "../examples/hello/agent.yaml",
  mock: "../examples/hello/mock.yaml",
  tags: ["hello"],
  test: async (t) => {
    await t.send("What is 2 + 2?");
    const [call] = t.toolCalls;
    // The tool ran for real (under --mock only the model is scripted): its result is in the log.
    t.check(call?.status, "finished");
    t.check(call?.result, match.jsonSchema({ type: "object", properties: { expression: { type: "string" }, result: { const: 4 } }, required: ["expression", "result"] }));
    t.toolSequence(["calculator"]);
    t.maxSteps(2);
  },
});
