/**
 * Metadata filters: which chunks a search may return. Every key must hold:
 *
 * - `path`: a glob (or a list, any of which) the chunk's document path matches (`policies/*.md`);
 * - `tags`: a tag (or a list, all of which) the document's front matter lists;
 * - `title`: text the document's title contains, ignoring case;
 * - any other key: the front-matter (or record) field of that name equals the value (or one of a list).
 */
import { z } from "zod";
import { globToRegExp } from "../patterns/index.js";
import type { Chunk } from "./chunk.js";

const Scalar = z.union([z.string(), z.number(), z.boolean()]);
export const MetadataFilterSchema = z.record(z.string().min(1), z.union([Scalar, z.array(Scalar).min(1)]));
export type MetadataFilter = z.infer<typeof MetadataFilterSchema>;

type Test = (chunk: Chunk) => boolean;

/** A predicate for the filter, compiled once (globs become regular expressions here). */
export function compileFilter(filter: MetadataFilter | undefined): Test | undefined {
  if (filter === undefined || Object.keys(filter).length === 0) return undefined;
  const tests: Test[] = Object.keys(filter)
    .sort()
    .map((key) => {
      const wanted = ([] as (string | number | boolean)[]).concat(filter[key]!);
      if (key === "path") {
        const globs = wanted.map((glob) => globToRegExp(String(glob)));
        return (chunk) => globs.some((glob) => glob.test(chunk.source));
      }
      if (key === "tags") return (chunk) => wanted.every((tag) => chunk.tags.includes(String(tag)));
      if (key === "title") return (chunk) => wanted.some((part) => (chunk.title ?? "").toLowerCase().includes(String(part).toLowerCase()));
      return (chunk) => wanted.some((value) => chunk.meta[key] === value);
    });
  return (chunk) => tests.every((test) => test(chunk));
}

/** Two filters that must both hold (a configured one and the one a call adds). */
export function mergeFilters(base: MetadataFilter | undefined, extra: MetadataFilter | undefined): MetadataFilter | undefined {
  if (!base) return extra;
  if (!extra) return base;
  const merged: MetadataFilter = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    if (!(key in merged)) merged[key] = value;
    // Both must hold: a key present in both narrows to values in both (tags: all of both).
    else if (key === "tags") merged[key] = [...new Set([...[merged[key]!].flat(), ...[value].flat()])];
    else {
      const allowed = [value].flat();
      merged[key] = [merged[key]!].flat().filter((item) => allowed.includes(item)) as MetadataFilter[string];
      if ((merged[key] as unknown[]).length === 0) merged[key] = [NO_MATCH];
    }
  }
  return merged;
}

const NO_MATCH = "\u0000no-match";
