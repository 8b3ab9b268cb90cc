/** BFCL's test categories (V4 names), how each is checked, and the V3 spellings. */
export type Language = "python" | "java" | "javascript";

export const AST_CATEGORIES = [
  "simple_python", "simple_java", "simple_javascript", "multiple", "parallel", "parallel_multiple",
  "live_simple", "live_multiple", "live_parallel", "live_parallel_multiple",
] as const;
export const RELEVANCE_CATEGORIES = ["irrelevance", "live_irrelevance", "live_relevance"] as const;
export const MULTI_TURN_CATEGORIES = ["multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context"] as const;
export const SUPPORTED_CATEGORIES: readonly string[] = [...AST_CATEGORIES, ...RELEVANCE_CATEGORIES];
export const ALL_CATEGORIES: readonly string[] = [...SUPPORTED_CATEGORIES, ...MULTI_TURN_CATEGORIES];

/** V3 file and id spellings of the three simple categories. */
const V3_NAMES: Record<string, string> = { simple: "simple_python", java: "simple_java", javascript: "simple_javascript" };

export function v4Category(name: string): string {
  return V3_NAMES[name] ?? name;
}

export function isRelevanceCategory(category: string): boolean {
  return category.includes("relevance") || category.includes("irrelevance");
}

export function isMultiTurn(category: string): boolean {
  return category.startsWith("multi_turn");
}

// `is_java`/`is_js` test substrings of the category, as the official code does.
export function languageOf(category: string): Language {
  if (category.includes("javascript")) return "javascript";
  if (category.includes("java")) return "java";
  return "python";
}

/** The id's category: everything before the last `_<number>` (`live_simple_12-3-4` → `live_simple`). */
export function categoryOfId(id: string): string {
  return v4Category(id.replace(/_\d+(?:-\d+)*$/, ""));
}
