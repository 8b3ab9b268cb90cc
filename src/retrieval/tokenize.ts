/**
 * Text to index terms. The tokenizer is Unicode-aware and locale-free: NFKC, then lowercasing
 * (the locale-independent `toLowerCase`), then runs of letters, marks and digits in any script.
 * Stopwords and the stemmer are optional and off by default, so a query word always matches the
 * same word in a document unless the agent asks for more.
 */

const TOKEN = /[\p{L}\p{M}\p{N}]+/gu;

/** Lowercased runs of letters and digits in any script; "ﬁle" and "file", "１" and "1" are the same token. */
export function tokenize(text: string): string[] {
  return text.normalize("NFKC").toLowerCase().match(TOKEN) ?? [];
}

/** A short English list: function words that carry no topic. */
export const ENGLISH_STOPWORDS: readonly string[] = Object.freeze([
  "a", "about", "after", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "been", "before", "being",
  "but", "by", "can", "could", "did", "do", "does", "doing", "for", "from", "had", "has", "have", "having", "he",
  "her", "here", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or",
  "our", "she", "should", "so", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this",
  "those", "to", "too", "us", "was", "we", "were", "what", "when", "where", "which", "who", "whom", "why", "will",
  "with", "would", "you", "your",
]);

export interface AnalyzerOptions {
  /** true: ENGLISH_STOPWORDS; a list: those words (compared after tokenizing). Default: none. */
  stopwords?: boolean | readonly string[];
  /** "english": the light suffix stripper below. Default: none. */
  stemmer?: "english" | "none";
}

export type Analyzer = (text: string) => string[];

/** The function that turns documents and queries alike into terms. */
export function analyzer(options: AnalyzerOptions = {}): Analyzer {
  const list = options.stopwords === true ? ENGLISH_STOPWORDS : options.stopwords === false || options.stopwords === undefined ? [] : options.stopwords;
  const stopwords = new Set(list.flatMap((word) => tokenize(word)));
  const stem = options.stemmer === "english" ? stemEnglish : undefined;
  if (stopwords.size === 0 && !stem) return tokenize;
  return (text) => {
    const terms: string[] = [];
    for (const token of tokenize(text)) {
      if (stopwords.has(token)) continue;
      terms.push(stem ? stem(token) : token);
    }
    return terms;
  };
}

const LATIN_WORD = /^[a-z]+$/;

/**
 * A light English stemmer: strips plural, -ing, -ed and -ly endings from plain a-z words of
 * four letters or more ("policies" → "policy", "employees" → "employee", "accrued" → "accru",
 * "accruing" → "accru"). Not Porter: it conflates fewer forms and never changes a non-English
 * word, which keeps hand-checked scores easy to reproduce. Documents and queries go through it alike.
 */
export function stemEnglish(word: string): string {
  if (word.length < 4 || !LATIN_WORD.test(word)) return word;
  if (word.endsWith("ies") && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith("sses")) return word.slice(0, -2);
  if (word.endsWith("ing") && word.length >= 6) return word.slice(0, -3);
  if (word.endsWith("ed") && word.length >= 5) return word.slice(0, -2);
  if (word.endsWith("ly") && word.length >= 5) return word.slice(0, -2);
  if (word.endsWith("s") && !/(ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}
