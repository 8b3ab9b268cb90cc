import { z } from "zod";

/**
 * z.object with its shape in sorted key order. zod gives back what it parses in its shape's
 * order, so every event and message these schemas give back has its keys in the order
 * canonical JSON writes them, and writing one again (a store copying a log, a bundle, a
 * replay) finds its keys already sorted instead of sorting each object again.
 */
export function sortedObject<S extends z.ZodRawShape>(shape: S) {
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(shape).sort()) sorted[key] = shape[key];
  return z.object(sorted as S);
}
