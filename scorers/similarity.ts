/**
 * `similarity`: how close two texts are, from 0 (nothing shared) to 1 (equal).
 * `levenshtein` is 1 − edit distance / longer length; `dice` is the Sørensen–Dice coefficient
 * over character bigrams (robust to reordered words); `jaccard` compares word sets.
 */
import { z } from "zod";
import { defineScorer, scored } from "../src/scoring/index.js";
import { editDistance } from "../src/text/index.js";
import { registerBuiltin } from "./registry.js";
import { asText, describe } from "./support.js";

export interface SimilarityOptions {
  method?: "levenshtein" | "dice" | "jaccard";
  /** Least similarity that passes. Default 0.8. */
  min?: number;
  /** Default false: case is ignored. */
  caseSensitive?: boolean;
}

export function levenshteinSimilarity(a: string, b: string): number {
  // Stryker disable next-line ConditionalExpression: equivalent, equal texts have edit distance 0, so the formula below gives 1 too (and two empty texts stop at the next line)
  if (a === b) return 1;
  const longer = Math.max(a.length, b.length);
  // Stryker disable next-line ConditionalExpression: equivalent, only two empty texts have no longer length, and they are equal, so the line above already answered
  if (longer === 0) return 1;
  return 1 - editDistance(a, b) / longer;
}

export function diceSimilarity(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length < 2 || b.length < 2) return 0;
  const bigrams = new Map<string, number>();
  // Stryker disable next-line EqualityOperator,ArithmeticOperator: equivalent when the loop runs further, it adds only one-character or empty grams, which never equal a bigram of the other text
  for (let i = 0; i < a.length - 1; i++) {
    const gram = a.slice(i, i + 2);
    bigrams.set(gram, (bigrams.get(gram) ?? 0) + 1);
  }
  let shared = 0;
  // Stryker disable next-line EqualityOperator,ArithmeticOperator: equivalent when the loop runs further, it looks up only one-character or empty grams, which the bigram table never holds
  for (let i = 0; i < b.length - 1; i++) {
    const gram = b.slice(i, i + 2);
    const count = bigrams.get(gram) ?? 0;
    if (count > 0) {
      bigrams.set(gram, count - 1);
      shared++;
    }
  }
  return (2 * shared) / (a.length - 1 + (b.length - 1));
}

export function jaccardSimilarity(a: string, b: string): number {
  const words = (text: string) => new Set(text.split(/[^\p{L}\p{N}]+/u).filter(Boolean));
  const left = words(a);
  const right = words(b);
  if (left.size === 0 && right.size === 0) return 1;
  let shared = 0;
  for (const word of left) if (right.has(word)) shared++;
  return shared / (left.size + right.size - shared);
}

export const similarityScorer = registerBuiltin(
  defineScorer<SimilarityOptions>({
    name: "similarity",
    options: { method: z.enum(["levenshtein", "dice", "jaccard"]), min: z.number().min(0).max(1), caseSensitive: z.boolean() },
    description: "Text similarity to the expected text (levenshtein, dice or jaccard); passes at `min` (default 0.8).",
    score({ value, expected, options }) {
      const method = options.method ?? "levenshtein";
      const min = options.min ?? 0.8;
      const fold = (text: string) => (options.caseSensitive ? text : text.toLowerCase()).trim();
      const a = fold(asText(value));
      const b = fold(asText(expected));
      const similarity = method === "dice" ? diceSimilarity(a, b) : method === "jaccard" ? jaccardSimilarity(a, b) : levenshteinSimilarity(a, b);
      const rounded = Math.round(similarity * 1000) / 1000;
      const pass = similarity >= min;
      return scored(
        similarity,
        pass,
        `${method} similarity ${rounded} ${pass ? ">=" : "<"} ${min} between ${describe(asText(value), 60)} and ${describe(asText(expected), 60)}`,
      );
    },
  }),
);
