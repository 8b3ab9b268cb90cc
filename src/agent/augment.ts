/**
 * Retrieval-augmented turns (`retrieval: { mode: augment }`): before a user turn's first model
 * call the agent searches its documents with the user's message and logs what it found as a
 * `retrieval` event (mode "augment", with the turn). Every model request of that turn then
 * carries those chunks in its system prompt, numbered [1], [2], ... for citations.
 *
 * The request is built from the logged event alone, never from a fresh search: a resumed or
 * replayed turn sends exactly the request the recorded one sent, even if the documents changed.
 */
import type { EventOf, RetrievedChunk, RunEvent } from "../contracts/index.js";
import type { RunLog } from "../store/index.js";
import type { AgentDefinition, AugmentRetrieval } from "./definition.js";

export type { AugmentRetrieval } from "./definition.js";

export const DEFAULT_AUGMENT_TEMPLATE = `{{system}}

Answer from the numbered passages below. Cite each fact with the number of the passage it comes from in square brackets, like [1]. If the passages do not answer the question, say that you do not know.

{{context}}`;

export const NO_PASSAGES = "(No passage matched the question.)";

type Retrieval = EventOf<"retrieval">;

/**
 * Logs the current turn's retrieval if it has none yet; a no-op for agents without
 * augmentation and for a turn that already retrieved (a resumed run, a later step).
 * A search that throws (a missing document) is the turn's failure.
 */
export async function augmentTurn(agent: AgentDefinition, log: RunLog): Promise<{ code: string; message: string } | undefined> {
  const settings = agent.retrieval;
  if (!settings) return undefined;
  const { message, retrieval } = currentTurn(log.events);
  if (!message || retrieval) return undefined;
  let chunks: RetrievedChunk[];
  try {
    chunks = await settings.retriever.search(message.content, { topK: settings.topK, ...(settings.minScore !== undefined ? { minScore: settings.minScore } : {}) });
  } catch (error) {
    return { code: "retrieval_failed", message: `retrieval before the model call failed: ${error instanceof Error ? error.message : String(error)}` };
  }
  log.append<"retrieval">({ type: "retrieval", mode: "augment", turn: log.state.turns, query: message.content, chunks });
  return undefined;
}

/** The system prompt for the current turn's requests: the template filled from its logged retrieval. */
export function augmentedSystem(agent: AgentDefinition, events: readonly RunEvent[]): string | undefined {
  if (!agent.retrieval) return agent.system;
  const { retrieval } = currentTurn(events);
  if (!retrieval) return agent.system;
  return renderTemplate(agent.retrieval.template ?? DEFAULT_AUGMENT_TEMPLATE, agent.system ?? "", retrieval.chunks);
}

export function renderTemplate(template: string, system: string, chunks: readonly RetrievedChunk[]): string {
  const context = renderPassages(chunks);
  return template.replaceAll("{{system}}", system).replaceAll("{{context}}", context).trim();
}

/** `[n] source — title › heading` then the text, one passage per rank. */
export function renderPassages(chunks: readonly RetrievedChunk[]): string {
  if (chunks.length === 0) return NO_PASSAGES;
  return chunks
    .map((chunk, index) => {
      const label = [chunk.source, chunk.title, ...(chunk.headings ?? []).filter((heading) => heading !== chunk.title)].filter(Boolean).join(" › ");
      return `[${index + 1}] ${label}\n${chunk.text}`;
    })
    .join("\n\n");
}

/** The current turn's user message and its augment retrieval, scanning back from the end of the log. */
function currentTurn(events: readonly RunEvent[]): { message: EventOf<"message"> | undefined; retrieval: Retrieval | undefined } {
  let retrieval: Retrieval | undefined;
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index]!;
    if (event.type === "retrieval" && event.mode === "augment") retrieval ??= event;
    if (event.type === "message") return { message: event.blocked ? undefined : event, retrieval };
  }
  return { message: undefined, retrieval: undefined };
}

/**
 * A retriever that answers from a recorded log instead of documents: the n-th search returns
 * the chunks of the log's n-th augment retrieval, provided the query is the same. For
 * replaying a run where the documents are not at hand (a bundle): the replayed requests are
 * then exactly the recorded ones. A search the log does not hold is an error, never a guess.
 */
export function recordedRetriever(events: readonly RunEvent[]): AugmentRetrieval["retriever"] {
  const recorded = events.filter((event): event is Retrieval => event.type === "retrieval" && event.mode === "augment");
  let next = 0;
  return {
    search(query: string) {
      const retrieval = recorded[next];
      if (!retrieval) return Promise.reject(new Error(`the recording holds ${recorded.length} augment retrieval(s); a search for ${JSON.stringify(query)} is one more`));
      if (retrieval.query !== query) {
        return Promise.reject(new Error(`augment retrieval ${next + 1} was recorded for ${JSON.stringify(retrieval.query)}, not ${JSON.stringify(query)}`));
      }
      next++;
      return Promise.resolve(retrieval.chunks.map((chunk) => ({ ...chunk })));
    },
  };
}
