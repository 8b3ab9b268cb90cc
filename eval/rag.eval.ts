// Retrieval-augmented answers over the policy fixtures (fixtures/retrieval): retrieval before the
// model call (augment mode) and through search_docs (tool mode), both checked with the same
// t.retrievedChunk, t.rankingMetric, t.citationsResolve and t.abstained.
import { defineEval, defineTool, z, type RunEvent } from "retrace-agents";

const augment = "./agents/policies.yaml";
const search = "./agents/policies-search.yaml";

/** The system prompt of the run's first model request. */
function firstRequestSystem(events: readonly RunEvent[]): string {
  const started = events.find((event) => event.type === "llm.started");
  return started?.type === "llm.started" ? (started.request.system ?? "") : "";
}

defineEval({
  name: "rag: augment mode retrieves the annual-leave passage before the model call and cites it",
  config: augment,
  mock: { responses: [{ text: "Permanent employees get 25 days of paid annual leave per calendar year [1]." }] },
  tags: ["smoke", "retrieval"],
  test: async (t) => {
    await t.send("How many annual leave days does a permanent employee get?");
    // The retrieval: the passage that says so, ranked first, in this turn.
    t.retrievedChunk("25 days of paid annual leave", { turn: 1, maxRank: 1 });
    t.rankingMetric("mrr", ["25 days of paid annual leave"], { k: 3, min: 1 });
    t.rankingMetric("recall", ["policies/leave.md#1"], { k: 3 });
    // Before the model call: the retrieval event comes first, and the request carries it as [1].
    t.check(t.events.findIndex((event) => event.type === "retrieval") < t.events.findIndex((event) => event.type === "llm.started"), true, { label: "retrieved before the model call" });
    t.check(firstRequestSystem(t.events), /\[1\] policies\/leave\.md › Leave policy › Annual leave\nPermanent employees get 25 days/, { label: "the request holds passage [1]" });
    // The answer, and its marker pointing at a retrieved passage.
    t.outputContains("25 days");
    t.citationsResolve({ everySentence: true });
    t.usedNoTools();
    t.maxToolCalls(0);
  },
});

defineEval({
  name: "rag: augment mode abstains when nothing relevant is retrieved",
  config: augment,
  mock: { responses: [{ text: "I don't know: the policies do not say anything about stock options." }] },
  tags: ["retrieval"],
  test: async (t) => {
    await t.send("What is the stock option vesting schedule?");
    t.check(firstRequestSystem(t.events), /No passage matched the question/, { label: "the request says nothing matched" });
    t.abstained({ whenNothingRelevant: true });
    t.completed();
  },
});

defineEval({
  name: "rag: augment mode retrieves again for each turn",
  config: augment,
  mock: {
    responses: [
      { text: "Hotels are reimbursed up to 180 euros per night in capital cities [1]." },
      { text: "Claims are due within 30 days of the expense [1]." },
    ],
  },
  tags: ["retrieval"],
  test: async (t) => {
    await t.send("What is the hotel limit per night in a capital city?");
    await t.send("How long do I have to submit an expense claim?");
    t.retrievedChunk("180 euros per night", { turn: 1, maxRank: 1 });
    t.retrievedChunk("within 30 days of the expense", { turn: 2, maxRank: 1 });
    t.rankingMetric("ndcg", ["within 30 days of the expense"], { k: 3, turn: 2 });
    t.citationsResolve({ turn: 1 });
    t.citationsResolve();
  },
});

defineEval({
  name: "rag: search_docs with a tag filter, ranked and cited",
  config: search,
  mock: {
    responses: [
      { tool_calls: [{ name: "search_docs", arguments: { query: "hotel limit per night", k: 3, filter: { tags: "finance" } } }] },
      { text: "Hotels are reimbursed up to 180 euros per night in capital cities [1]." },
    ],
  },
  tags: ["retrieval"],
  test: async (t) => {
    await t.send("What is the hotel limit per night in a capital city?");
    t.calledToolWith("search_docs", { filter: { tags: "finance" } });
    t.retrievedChunk({ text: "180 euros per night", source: "policies/expenses.md", maxRank: 1 }, { turn: 1 });
    t.rankingMetric("hit_rate", ["180 euros per night"], { k: 1 });
    t.rankingMetric("precision", ["180 euros per night"], { k: 1 });
    t.check(t.run.retrievals[0]?.chunks.every((chunk) => chunk.source === "policies/expenses.md"), true, { label: "the filter kept finance documents only" });
    t.citationsResolve({ everySentence: true });
  },
});

defineEval({
  name: "rag: search_docs finds nothing and the answer abstains",
  config: search,
  mock: {
    responses: [
      { tool_calls: [{ name: "search_docs", arguments: { query: "stock option vesting schedule" } }] },
      { text: "I couldn't find anything about stock options in the policies." },
    ],
  },
  tags: ["retrieval"],
  test: async (t) => {
    await t.send("What is the stock option vesting schedule?");
    t.calledTool("search_docs");
    t.abstained({ whenNothingRelevant: true });
  },
});

// A tool defined in the eval file with the zod Retrace re-exports (no zod install needed).
const refundOrder = defineTool({
  name: "refund_order",
  description: "Refunds an order in full.",
  input: z.object({ orderId: z.string() }),
  risk: "destructive",
  requiresApproval: "manager",
  run: ({ orderId }) => ({ refunded: orderId }),
});

defineEval({
  name: "approvals: a refund waits for the manager's approval",
  config: "./agents/approvals.yaml",
  tools: { refund_order: refundOrder },
  mock: { responses: [{ tool_calls: [{ name: "refund_order", arguments: { orderId: "A-1001" } }] }] },
  tags: ["governance"],
  test: async (t) => {
    await t.send("Please refund order A-1001.");
    t.waiting();
    t.maxToolCalls(1);
    t.notCalledTool("refund_order");
  },
});

// A tool defined with a plain JSON Schema: no zod at all in the eval file.
const leaveDays = defineTool({
  name: "leave_days",
  description: "Annual leave days for a kind of employee.",
  input: { type: "object", properties: { employeeType: { type: "string", enum: ["permanent", "temporary"] } }, required: ["employeeType"] },
  run: (args) => ({ days: args.employeeType === "permanent" ? 25 : 24 }),
});

defineEval({
  name: "tools: a tool defined with a JSON Schema runs with validated arguments",
  config: "./agents/approvals.yaml",
  tools: { leave_days: leaveDays },
  mock: {
    responses: [{ tool_calls: [{ name: "leave_days", arguments: { employeeType: "permanent" } }] }, { text: "Permanent employees get 25 days." }],
  },
  tags: ["tools"],
  test: async (t) => {
    await t.send("How many leave days does a permanent employee get?");
    t.calledToolWith("leave_days", { employeeType: "permanent" });
    t.check(t.toolCalls[0]?.result, { days: 25 });
    t.maxToolCalls(1);
  },
});
