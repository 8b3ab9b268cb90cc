import { createInterface } from "node:readline/promises";
import { canonicalJson } from "../canonical/index.js";
import type { Approver, ApprovalDecision, ApprovalQuestion } from "./approver.js";

/** Asks y/N on the terminal for each missing role; anything but y/yes (including no input) is No. */
export function promptApprover(input: NodeJS.ReadableStream = process.stdin, output: NodeJS.WritableStream = process.stderr): Approver {
  return {
    async decide(question: ApprovalQuestion): Promise<ApprovalDecision[]> {
      const decisions: ApprovalDecision[] = [];
      const readline = createInterface({ input, output, terminal: false });
      let closed = false;
      readline.on("close", () => {
        closed = true;
      });
      try {
        for (const role of question.missingRoles) {
          const asRole = role === "approver" ? "" : ` as ${role}`;
          output.write(`\nApprove ${question.tool}(${canonicalJson(question.args)}) [${question.callId}]${asRole}? [y/N] `);
          const answer = closed ? "" : await Promise.race([readline.question(""), new Promise<string>((resolve) => readline.once("close", () => resolve("")))]);
          const approved = /^\s*y(es)?\s*$/i.test(answer);
          decisions.push({ approved, role, ...(approved ? {} : { reason: answer.trim() ? "denied at the prompt" : "no answer (default No)" }), by: "prompt" });
          if (!approved) break;
        }
      } finally {
        readline.close();
      }
      return decisions;
    },
  };
}
