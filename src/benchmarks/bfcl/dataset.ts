/**
 * Reading BFCL's data files from their text (JSON Lines, although they end in `.json`).
 * A bad line is reported with its file and line and left out; every other entry still runs.
 */
import { isMultiTurn, isRelevanceCategory, v4Category } from "./categories.js";
import type { FunctionDoc } from "./check.js";
import { pyJsonLoads } from "./python/json.js";
import { PyDict, type PyValue } from "./python/value.js";
import { pyAnswers, QuestionSchema } from "./schema.js";

export interface DataProblem {
  file: string;
  line: number;
  message: string;
}

export interface BfclEntry {
  id: string;
  category: string;
  file: string;
  line: number;
  /** The conversation, one list of messages per turn. */
  turns: { role: string; content: string }[][];
  functions: FunctionDoc[];
  /** The same functions as Python values, for the prompt (so that `1.0` is dumped as `1.0`). */
  functionsPy: PyValue;
  /** Absent for the (ir)relevance categories, which have no ground truth. */
  answers?: PyDict[];
}

export interface DataFile {
  /** As reports show it. */
  path: string;
  text: string;
}

/** `BFCL_v4_live_simple.json` → { version: 4, category: "live_simple" }; V3's `simple` is V4's `simple_python`. */
export function categoryOfFile(name: string): { version: 3 | 4; category: string } | undefined {
  const match = /^BFCL_v([34])_(.+)\.json$/.exec(name);
  if (!match) return undefined;
  return { version: Number(match[1]) as 3 | 4, category: v4Category(match[2] as string) };
}

function lines(text: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  text.split("\n").forEach((raw, index) => {
    const body = raw.replace(/\r$/, "");
    if (body.trim()) out.push({ line: index + 1, text: body });
  });
  return out;
}

function describe(error: unknown): string {
  if (error && typeof error === "object" && "issues" in error) {
    const issues = (error as { issues: { path: PropertyKey[]; message: string }[] }).issues;
    return issues.map((issue) => `${issue.path.map(String).join(".") || "(root)"}: ${issue.message}`).join("; ");
  }
  return (error as Error).message;
}

export function parseQuestions(file: DataFile, category: string, problems: DataProblem[]): BfclEntry[] {
  const entries: BfclEntry[] = [];
  for (const { line, text } of lines(file.text)) {
    try {
      const row = QuestionSchema.parse(JSON.parse(text));
      const python = pyJsonLoads(text) as PyDict;
      const functionsPy = python.get("function") ?? [];
      entries.push({ id: row.id, category, file: file.path, line, turns: row.question, functions: row.function as FunctionDoc[], functionsPy });
    } catch (error) {
      problems.push({ file: file.path, line, message: `not a BFCL question: ${describe(error)}` });
    }
  }
  return entries;
}

export function parseAnswers(file: DataFile, problems: DataProblem[]): Map<string, PyDict[]> {
  const answers = new Map<string, PyDict[]>();
  for (const { line, text } of lines(file.text)) {
    try {
      const row = pyJsonLoads(text);
      if (!(row instanceof PyDict)) throw new Error("not a JSON object");
      const id = row.get("id");
      if (typeof id !== "string") throw new Error("id: expected a string");
      answers.set(id, pyAnswers(row.get("ground_truth") ?? (null as PyValue), id));
    } catch (error) {
      problems.push({ file: file.path, line, message: `not a BFCL possible answer: ${describe(error)}` });
    }
  }
  return answers;
}

/** Joins questions with their answers; a question without one is a problem, not a silent skip. */
export function attachAnswers(entries: BfclEntry[], answers: Map<string, PyDict[]> | undefined, answerFile: string | undefined, problems: DataProblem[]): BfclEntry[] {
  const ready: BfclEntry[] = [];
  for (const entry of entries) {
    if (isRelevanceCategory(entry.category) || isMultiTurn(entry.category)) {
      ready.push(entry);
      continue;
    }
    const answer = answers?.get(entry.id);
    if (!answer) {
      problems.push({
        file: entry.file,
        line: entry.line,
        message: answerFile ? `no possible answer for ${entry.id} in ${answerFile}` : `no possible_answer file for ${entry.category}`,
      });
      continue;
    }
    ready.push({ ...entry, answers: answer });
  }
  return ready;
}
