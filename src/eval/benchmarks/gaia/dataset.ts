/**
 * Reads GAIA's layout (`2023/<split>/metadata.jsonl`, attachments beside it). The data is gated,
 * so users bring their own copy; a bad row is reported with its file and line and the other
 * rows still load.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { extname, isAbsolute, join, normalize, sep } from "node:path";
import { z } from "zod";
import { BenchmarkDataError } from "../../../errors/index.js";

const RowSchema = z.looseObject({
  task_id: z.string().min(1),
  Question: z.string(),
  Level: z.union([z.number().int().min(1), z.string().regex(/^\d+$/).transform(Number)]),
  "Final answer": z.string(),
  file_name: z.string().default(""),
});

/** What the model can be shown of an attachment: its text, or why not. */
export type Attachment =
  | { name: string; shown: true; text: string }
  | { name: string; shown: false; reason: string };

export interface GaiaTask {
  taskId: string;
  question: string;
  level: number;
  /** "?" in the test split, whose answers are private. */
  finalAnswer: string;
  attachment: Attachment | undefined;
  /** Where the row is, for messages. */
  file: string;
  line: number;
}

export interface GaiaData {
  metadataFile: string;
  split: string;
  tasks: GaiaTask[];
  /** Rows that could not be used; each names its file and line. */
  problems: BenchmarkDataError[];
}

/** Attachments the harness puts into the prompt as text; others are named but not shown. */
const TEXT_EXTENSIONS = new Set([".txt", ".md", ".csv", ".tsv", ".json", ".jsonl", ".jsonld", ".xml", ".html", ".py", ".yaml", ".yml"]);
const MAX_INLINE_BYTES = 256 * 1024;

export function findMetadata(dir: string, split: string): string {
  const candidates = [join(dir, "2023", split, "metadata.jsonl"), join(dir, split, "metadata.jsonl"), join(dir, "metadata.jsonl")];
  const found = candidates.find((file) => existsSync(file));
  if (!found) {
    throw new BenchmarkDataError(`no GAIA metadata.jsonl for split "${split}"; looked for ${candidates.join(", ")} (GAIA's data is gated: download it from Hugging Face and pass its folder)`, { file: dir });
  }
  return found;
}

function readAttachment(folder: string, name: string, place: { file: string; line: number }): Attachment {
  if (isAbsolute(name) || normalize(name).split(sep).includes("..")) {
    throw new BenchmarkDataError(`file_name ${JSON.stringify(name)} points outside the data folder`, place);
  }
  const path = join(folder, name);
  if (!existsSync(path)) throw new BenchmarkDataError(`attachment ${JSON.stringify(name)} is missing (expected at ${path})`, place);
  const extension = extname(name).toLowerCase();
  if (!TEXT_EXTENSIONS.has(extension)) return { name, shown: false, reason: `a ${extension || "binary"} file, which this harness does not convert to text` };
  const size = statSync(path).size;
  if (size > MAX_INLINE_BYTES) return { name, shown: false, reason: `${size} bytes, over the ${MAX_INLINE_BYTES}-byte limit for text put into the prompt` };
  return { name, shown: true, text: readFileSync(path, "utf8") };
}

export function loadGaia(dir: string, split = "validation"): GaiaData {
  const metadataFile = findMetadata(dir, split);
  const folder = join(metadataFile, "..");
  const tasks: GaiaTask[] = [];
  const problems: BenchmarkDataError[] = [];
  const seen = new Map<string, number>();
  const lines = readFileSync(metadataFile, "utf8").split("\n");
  lines.forEach((text, index) => {
    const place = { file: metadataFile, line: index + 1 };
    if (text.trim() === "") return;
    try {
      let raw: unknown;
      try {
        raw = JSON.parse(text);
      } catch (error) {
        throw new BenchmarkDataError(`not JSON: ${(error as Error).message}`, place);
      }
      const parsed = RowSchema.safeParse(raw);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new BenchmarkDataError(`${issue?.path.join(".") || "row"}: ${issue?.message ?? "invalid"}`, place);
      }
      const row = parsed.data;
      const earlier = seen.get(row.task_id);
      if (earlier !== undefined) throw new BenchmarkDataError(`task_id ${row.task_id} repeats the row on line ${earlier}`, place);
      seen.set(row.task_id, place.line);
      tasks.push({
        taskId: row.task_id,
        question: row.Question,
        level: row.Level,
        finalAnswer: row["Final answer"],
        attachment: row.file_name ? readAttachment(folder, row.file_name, place) : undefined,
        ...place,
      });
    } catch (error) {
      if (!(error instanceof BenchmarkDataError)) throw error;
      problems.push(error);
    }
  });
  return { metadataFile, split, tasks, problems };
}

/** The user turn for a task: the question, and the attachment as the harness can show it. */
export function taskPrompt(task: GaiaTask): string {
  const attachment = task.attachment;
  if (!attachment) return task.question;
  if (attachment.shown) return `${task.question}\n\nAttached file ${attachment.name}:\n\`\`\`\n${attachment.text}\n\`\`\``;
  return `${task.question}\n\n(The task comes with an attached file, ${attachment.name}, which cannot be shown here: ${attachment.reason}.)`;
}
