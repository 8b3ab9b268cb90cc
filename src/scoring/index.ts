export { defineScorer, scored, passed, failed, skipped, checkResult } from "./define.js";
export { defineAssertion } from "./assertion.js";
export { optionsProblem } from "./options.js";
