/** SQLite's BINARY collation: UTF-8 bytes, not UTF-16 units and never the locale. */
export function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}
