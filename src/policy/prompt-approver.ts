import { createInterface } from "node:readline";
import { canonicalJson } from "../canonical/index.js";
import type { Approver, ApprovalDecision, ApprovalQuestion } from "./approver.js";

/**
 * Reads answers a line at a time. One reader serves every question, so answers piped in ahead
 * of time (`printf 'y\ny\n' | retrace run ...`) each reach their own question.
 */
class LineReader {
  readonly #lines: string[] = [];
  readonly #waiting: ((line: string | undefined) => void)[] = [];
  #closed = false;
  readonly #reader;

  constructor(input: NodeJS.ReadableStream) {
    const reader = createInterface({ input, terminal: false });
    this.#reader = reader;
    reader.on("line", (line) => {
      const waiter = this.#waiting.shift();
      if (waiter) waiter(line);
      else this.#lines.push(line);
    });
    reader.on("close", () => {
      this.#closed = true;
      for (const waiter of this.#waiting.splice(0)) waiter(undefined);
    });
  }

  close(): void {
    this.#reader.close();
  }

  /** The next line, or undefined once the input has ended. */
  next(): Promise<string | undefined> {
    const line = this.#lines.shift();
    if (line !== undefined || this.#closed) return Promise.resolve(line);
    return new Promise((resolve) => this.#waiting.push(resolve));
  }
}

/** Asks y/N on the terminal for each missing role; anything but y/yes (including no input) is No. */
export function promptApprover(input: NodeJS.ReadableStream = process.stdin, output: NodeJS.WritableStream = process.stderr): Approver {
  let reader: LineReader | undefined;
  return {
    async decide(question: ApprovalQuestion): Promise<ApprovalDecision[]> {
      reader ??= new LineReader(input);
      const decisions: ApprovalDecision[] = [];
      for (const role of question.missingRoles) {
        const asRole = role === "approver" ? "" : ` as ${role}`;
        output.write(`\nApprove ${question.tool}(${canonicalJson(question.args)}) [${question.callId}]${asRole}? [y/N] `);
        const answer = (await reader.next()) ?? "";
        const approved = /^\s*y(es)?\s*$/i.test(answer);
        decisions.push({ approved, role, ...(approved ? {} : { reason: answer.trim() ? "denied at the prompt" : "no answer (default No)" }), by: "prompt" });
        if (!approved) break;
      }
      return decisions;
    },
    close() {
      reader?.close();
    },
  };
}
