/** `retrieved-chunk`: a retrieval (a `retrieval` event) returned a chunk with this text, id or source. */
import { z } from "zod";
import { defineScorer, failed, passed } from "../src/scoring/index.js";
import { registerBuiltin } from "./registry.js";
import { describe } from "./support.js";
import { defineAssertion } from "../src/scoring/index.js";
import { brief } from "../src/text/index.js";
import { chunkAddress } from "../src/retrieval/chunk.js";

export interface RetrievedChunkOptions {
  /** Text the chunk contains. */
  text?: string;
  /** The chunk id, e.g. "guide.md#2". */
  id?: string;
  /** The document it came from: its source as retrieved, or the end of it ("guide.md" matches "../docs/guide.md"). */
  source?: string;
  /** Default false: text is matched ignoring case. */
  caseSensitive?: boolean;
  /** The chunk must rank at this position or better. */
  maxRank?: number;
  /** Only retrievals of this user turn (from 1) count. */
  turn?: number;
}

export const retrievedChunkScorer = registerBuiltin(
  defineScorer<RetrievedChunkOptions>({
    name: "retrieved-chunk",
    description: "A retrieval returned a chunk with the given text, id or source (optionally within a rank).",
    score({ run, options }) {
      const fold = (text: string) => (options.caseSensitive ? text : text.toLowerCase());
      const retrievals = options.turn === undefined ? run.retrievals : run.retrievals.filter((retrieval) => retrieval.turn === options.turn);
      const chunks = retrievals.flatMap((retrieval) => retrieval.chunks);
      const hit = chunks.find(
        (chunk) =>
          (options.text === undefined || fold(chunk.text).includes(fold(options.text))) &&
          (options.id === undefined || chunk.id === options.id || chunkAddress(chunk.id) === options.id) &&
          (options.source === undefined || chunk.source === options.source || chunk.source.endsWith(`/${options.source}`)) &&
          (options.maxRank === undefined || chunk.rank <= options.maxRank),
      );
      const wanted = [
        options.text !== undefined ? `containing ${describe(options.text, 60)}` : "",
        options.id !== undefined ? `with id ${options.id}` : "",
        options.source !== undefined ? `from ${options.source}` : "",
        options.maxRank !== undefined ? `at rank <= ${options.maxRank}` : "",
        options.turn !== undefined ? `in turn ${options.turn}` : "",
      ].filter(Boolean).join(" ");
      if (hit) return passed(`retrieved ${hit.id} (rank ${hit.rank}) ${wanted}`);
      if (retrievals.length === 0) return failed(`no chunk ${wanted} was retrieved: the run made no retrieval${options.turn !== undefined ? ` in turn ${options.turn}` : ""}`);
      const seen = chunks.slice(0, 8).map((chunk) => `${chunk.id}#rank${chunk.rank}`).join(", ");
      return failed(`no retrieved chunk ${wanted}; retrieved: ${seen || "(no chunks)"}`);
    },
  }),
);

/** The `t` assertions this scorer offers. */
export const retrievedChunkAssertions = {
  /** A retrieval returned a chunk containing `text` (or matching id / source / rank). */
  retrievedChunk: defineAssertion({
    scorer: "retrieved-chunk",
    arity: 1,
    options: { caseSensitive: z.boolean(), turn: z.number().int().positive(), maxRank: z.number().int().positive() },
    call: (
      [match]: [match: string | { text?: string; id?: string; source?: string; maxRank?: number }],
      options: { caseSensitive?: boolean; turn?: number; maxRank?: number },
    ) => ({
      label: `retrievedChunk(${brief(match)})`,
      options: {
        ...(typeof match === "string" ? { text: match } : match),
        ...(options.caseSensitive !== undefined ? { caseSensitive: options.caseSensitive } : {}),
        ...(options.turn !== undefined ? { turn: options.turn } : {}),
        ...(options.maxRank !== undefined ? { maxRank: options.maxRank } : {}),
      },
    }),
  }),
};
