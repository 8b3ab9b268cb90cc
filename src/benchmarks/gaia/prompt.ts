/**
 * The prompt GAIA's authors give the model, and how the answer is taken from its reply. The
 * system prompt is the one published with the benchmark (the paper's appendix and the
 * leaderboard's README); the scorer only sees the text after "FINAL ANSWER:".
 */
export const GAIA_SYSTEM_PROMPT =
  "You are a general AI assistant. I will ask you a question. Report your thoughts, and finish your answer with the following template: " +
  "FINAL ANSWER: [YOUR FINAL ANSWER]. YOUR FINAL ANSWER should be a number OR as few words as possible OR a comma separated list of numbers and/or strings. " +
  "If you are asked for a number, don't use comma to write your number neither use units such as $ or percent sign unless specified otherwise. " +
  "If you are asked for a string, don't use articles, neither abbreviations (e.g. for cities), and write the digits in plain text unless specified otherwise. " +
  "If you are asked for a comma separated list, apply the above rules depending of whether the element to be put in the list is a number or a string.";

import { isPythonSpace } from "./python-float.js";

const MARKER = /FINAL ANSWER:/gi;

/** Trims what Python's `str.strip()` would, not JavaScript's whitespace set (which includes U+FEFF). */
function stripPython(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isPythonSpace(text.charCodeAt(start))) start++;
  while (end > start && isPythonSpace(text.charCodeAt(end - 1))) end--;
  return text.slice(start, end);
}

/**
 * The text after the last "FINAL ANSWER:" (the template may be echoed earlier in the reply; the
 * marker is matched in any case, as models write "Final answer:" too), stripped of surrounding
 * whitespace as Python's `strip()` does; null when the reply has no marker, which the scorer
 * treats as Python's None. Nothing else is removed: a trailing period or quotes are part of the
 * answer the official scorer sees.
 */
export function extractFinalAnswer(reply: string): string | null {
  let end = -1;
  for (const found of reply.matchAll(MARKER)) end = found.index + found[0].length;
  return end < 0 ? null : stripPython(reply.slice(end));
}
