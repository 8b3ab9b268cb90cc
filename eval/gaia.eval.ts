// GAIA's official answer check as an ordinary assertion: any agent's reply can be scored the
// way the GAIA leaderboard scores it (the answer after "FINAL ANSWER:", Python's number rules).
import { defineEval } from "retrace-agents";

defineEval({
  name: "gaia-exact: a number with $ and thousands separators matches the plain ground truth",
  config: "./agents/chat.yaml",
  mock: { responses: [{ text: "The invoice adds up to one thousand dollars.\nFINAL ANSWER: $1,000" }] },
  tags: ["benchmarks", "gaia"],
  test: async (t) => {
    await t.send("What is the invoice total, in dollars?");
    await t.judge("gaia-exact", { expected: "1000" });
  },
});

defineEval({
  name: "gaia-exact: ',' and ';' separate list elements alike, and case and spaces do not count",
  config: "./agents/chat.yaml",
  mock: { responses: [{ text: "Both appear in the note.\nFinal answer: st. louis; PARIS" }] },
  tags: ["benchmarks", "gaia"],
  test: async (t) => {
    await t.send("Which two cities does the note name?");
    await t.judge("gaia-exact", { expected: "St. Louis, Paris" });
  },
});
