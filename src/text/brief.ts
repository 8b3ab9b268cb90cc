/** A value as a report line shows it in an assertion's label: a RegExp as written, a function by name, anything else as clipped JSON. */
export function brief(value: unknown, max = 60): string {
  if (value instanceof RegExp) return String(value);
  if (typeof value === "function") return value.name ? `${value.name}()` : "predicate";
  try {
    const text = JSON.stringify(value) ?? String(value);
    return text.length > max ? `${text.slice(0, max - 1)}…` : text;
  } catch {
    return String(value);
  }
}
