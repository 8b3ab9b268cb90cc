/**
 * The two ways text enters a page: as HTML text or attribute values (escaped), and as the
 * page's data (JSON inside a script element). Nothing else of a run or report is ever written
 * into the markup, so a model answer holding `<script>` stays text.
 */

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text safe inside an element or a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char] as string);
}

/**
 * JSON safe inside `<script type="application/json">`: every `<`, `>` and `&` is written as a
 * \u escape, so no `</script>` or `<!--` can end or bend the element, and U+2028/U+2029 are
 * escaped for engines that still treat them as line ends. `JSON.parse` gives back the value.
 */
export function embedJson(value: unknown): string {
  const json = JSON.stringify(value) ?? "null";
  return json.replace(/[<>&\u2028\u2029]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
