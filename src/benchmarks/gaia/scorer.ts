/**
 * GAIA's official `question_scorer`, with Python's semantics (../shared/specs/BENCHMARKS.md).
 * Each step mirrors the leaderboard's scorer.py; its quirks are kept on purpose, because a
 * score is only comparable with the leaderboard's if it is computed the same way.
 */
import { isPythonSpace, pythonFloat } from "./python-float.js";

/** Which rule decided: the ground truth is a number, a list, or a string. */
export type GaiaBranch = "number" | "list" | "string";

export interface GaiaVerdict {
  correct: boolean;
  branch: GaiaBranch;
}

/**
 * `normalize_number_str`: drop `$`, `%` and `,`, then `float()`. A failure scores as infinity —
 * a quirk: an unparseable answer therefore equals a ground truth of "inf".
 */
export function normalizeNumberStr(text: string): number {
  const value = pythonFloat(text.replace(/[$%,]/g, ""));
  return value ?? Infinity;
}

// string.punctuation: ASCII only, so U+2019 (’) is not removed.
const PUNCTUATION = new Set("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~");

/**
 * `normalize_str`: remove every character Python's `\s` matches (which is not JavaScript's set:
 * Python counts U+001C–U+001F and U+0085, JavaScript counts U+FEFF), lowercase, and unless told
 * otherwise remove ASCII punctuation.
 */
export function normalizeStr(text: string, removePunct = true): string {
  let spaceless = "";
  for (const char of text) {
    if (!isPythonSpace(char.codePointAt(0) as number)) spaceless += char;
  }
  // Python's str.lower() and JavaScript's toLowerCase() both apply Unicode's unconditional
  // lowercase mappings (final sigma included); toLowerCase does not depend on the locale.
  const lower = spaceless.toLowerCase();
  if (!removePunct) return lower;
  let out = "";
  for (const char of lower) if (!PUNCTUATION.has(char)) out += char;
  return out;
}

const isFloat = (text: string): boolean => pythonFloat(text) !== undefined;

/** `split_string`: `re.split("[,;]", s)` — no stripping, empty pieces kept. */
const splitList = (text: string): string[] => text.split(/[,;]/);

/**
 * `question_scorer(model_answer, ground_truth)`. `null` stands for Python's None, which the
 * official code turns into the string "None" before scoring.
 */
export function scoreGaia(modelAnswer: string | null, groundTruth: string): GaiaVerdict {
  const answer = modelAnswer ?? "None";
  if (isFloat(groundTruth)) {
    return { branch: "number", correct: normalizeNumberStr(answer) === (pythonFloat(groundTruth) as number) };
  }
  if (groundTruth.includes(",") || groundTruth.includes(";")) {
    const truths = splitList(groundTruth);
    const answers = splitList(answer);
    if (truths.length !== answers.length) return { branch: "list", correct: false };
    const correct = truths.every((truth, i) => {
      const given = answers[i] as string;
      const number = pythonFloat(truth);
      if (number !== undefined) return normalizeNumberStr(given) === number;
      // The official comment: "we do not remove punct since comparisons can include punct".
      return normalizeStr(given, false) === normalizeStr(truth, false);
    });
    return { branch: "list", correct };
  }
  return { branch: "string", correct: normalizeStr(answer) === normalizeStr(groundTruth) };
}
