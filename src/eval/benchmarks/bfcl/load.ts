/** The file-system edge: finds BFCL's V4 or V3 files in a folder and reads them. */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { BenchmarkDataError } from "../../../errors/index.js";
import { ALL_CATEGORIES, attachAnswers, categoryOfFile, isMultiTurn, parseAnswers, parseQuestions, type BfclEntry, type DataProblem } from "../../../benchmarks/bfcl/index.js";

export interface BfclDataset {
  version: 3 | 4;
  entries: BfclEntry[];
  problems: DataProblem[];
  /** Categories found in the folder, in BFCL's order. */
  categories: string[];
}

export function loadBfclData(dir: string, options: { categories?: readonly string[]; cwd?: string } = {}): BfclDataset {
  if (!existsSync(dir)) throw new BenchmarkDataError(`no BFCL data folder at ${dir}`, { file: dir });
  const show = (path: string): string => relative(options.cwd ?? process.cwd(), path) || path;
  const found = readdirSync(dir)
    .map((name) => ({ name, parsed: categoryOfFile(name) }))
    .filter((file): file is { name: string; parsed: { version: 3 | 4; category: string } } => file.parsed !== undefined);
  if (found.length === 0) throw new BenchmarkDataError(`no BFCL_v4_*.json or BFCL_v3_*.json files in ${dir}`, { file: dir });
  // A folder holding both layouts is read as V4.
  const version = found.some((file) => file.parsed.version === 4) ? 4 : 3;
  const order = (category: string): number => {
    const index = ALL_CATEGORIES.indexOf(category);
    return index < 0 ? ALL_CATEGORIES.length : index;
  };
  // Entries in BFCL's category order, whatever order the folder lists its files in.
  const files = found
    .filter((file) => file.parsed.version === version)
    .sort((a, b) => order(a.parsed.category) - order(b.parsed.category) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const wanted = options.categories ? new Set(options.categories) : undefined;
  const problems: DataProblem[] = [];
  const entries: BfclEntry[] = [];
  const categories: string[] = [];
  for (const { name, parsed } of files) {
    if (wanted && !wanted.has(parsed.category)) continue;
    categories.push(parsed.category);
    const path = join(dir, name);
    const questions = parseQuestions({ path: show(path), text: readFileSync(path, "utf8") }, parsed.category, problems);
    const answerPath = join(dir, "possible_answer", name);
    // Multi-turn ground truth is a list of call strings per turn; it is not read (not supported).
    const answers = existsSync(answerPath) && !isMultiTurn(parsed.category) ? parseAnswers({ path: show(answerPath), text: readFileSync(answerPath, "utf8") }, problems) : undefined;
    entries.push(...attachAnswers(questions, answers, existsSync(answerPath) ? show(answerPath) : undefined, problems));
  }
  return { version, entries, problems, categories };
}
