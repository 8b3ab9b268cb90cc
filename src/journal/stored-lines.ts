import { canonicalJson, immutable } from "../canonical/index.js";
import type { EventOf, Message, RunEvent } from "../contracts/index.js";
import type { ErrorPlace } from "../errors/index.js";
import { checkStoredBody } from "./codec.js";

/**
 * Where a canonical `llm.started` line's conversation begins: its keys are sorted, so only `at`
 * (a timestamp), `attempt` and `request.maxTokens` (numbers) come before `request.messages`.
 * A line that does not begin exactly so is checked in full.
 */
const CONVERSATION_START = /^\{"at":"[^"\\]*","attempt":\d+,"request":\{(?:"maxTokens":-?\d+,)?"messages":\[/;

/**
 * Checks a run's stored lines in order, each as `checkStoredBody` does, without reading the
 * same conversation again on every model call. Every `llm.started` line holds the whole
 * conversation, so a long run's log is mostly the earlier lines' messages written again: that
 * made reading a log cost the square of its steps.
 *
 * When a line's messages begin with the exact bytes of the previous `llm.started` line's
 * messages (at the same place, which the line's beginning pins down), only the rest of the
 * line is parsed and checked — the line with those bytes cut out — and the event takes the
 * previous event's message objects for them (frozen: events share them). Bytes that already
 * passed as canonical, valid messages are the same messages here, and the rest of the line is
 * checked as any line is, so the result is what `checkStoredBody` of the whole line gives; a
 * line the shortcut cannot vouch for in every respect is checked in full, and any error is the
 * full check's.
 */
export class StoredLineChecker {
  /** The previous `llm.started` line's messages: their bytes (the array's content) and the checked objects. */
  #conversation: { text: string; messages: readonly Message[] } | undefined;

  /**
   * The event the line holds, and `fresh`: what was parsed anew (the line, or the line without
   * the previous conversation) — a caller that bounds nesting walks that, the rest was walked
   * in an earlier line at the same place.
   */
  check(line: string, place: ErrorPlace = {}): { event: RunEvent; fresh: RunEvent } {
    const quick = this.#shortcut(line, place);
    if (quick) return quick;
    const event = checkStoredBody(line, place);
    if (event.type === "llm.started") this.#remember(line, event);
    return { event, fresh: event };
  }

  #shortcut(line: string, place: ErrorPlace): { event: RunEvent; fresh: RunEvent } | undefined {
    const known = this.#conversation;
    if (!known || known.text.length === 0) return undefined;
    const start = CONVERSATION_START.exec(line);
    if (!start) return undefined;
    const at = start[0].length;
    if (!holdsAt(line, at, known.text)) return undefined;
    const after = at + known.text.length;
    const next = line.charCodeAt(after);
    // The earlier messages end there: the array closes or another message follows.
    if (next !== 0x5d && next !== 0x2c) return undefined;
    const rest = line.slice(0, at) + line.slice(next === 0x2c ? after + 1 : after);
    let fresh: RunEvent;
    try {
      fresh = checkStoredBody(rest, place);
    } catch {
      // The full check names the problem as it is in the line itself.
      return undefined;
    }
    if (fresh.type !== "llm.started") return undefined;
    const added = fresh.request.messages;
    // A comma with nothing after it, or "]" after messages were cut: bytes `rest` cannot vouch for.
    if ((next === 0x2c) !== added.length > 0) return undefined;
    const messages = [...known.messages, ...added.map((message) => immutable(message))];
    const event: EventOf<"llm.started"> = { ...fresh, request: { ...fresh.request, messages } };
    const addedText = added.length > 0 ? conversationText(added) : "";
    // Remembered as a slice of the line (no copy) when the line holds exactly that text, as a
    // canonical line does unless the schema dropped a key from a new message.
    const end = after + (added.length > 0 ? 1 + addedText.length : 0);
    this.#conversation = { text: added.length === 0 || holdsAt(line, after + 1, addedText) ? line.slice(at, end) : `${known.text},${addedText}`, messages };
    return { event, fresh };
  }

  #remember(line: string, event: EventOf<"llm.started">): void {
    const start = CONVERSATION_START.exec(line);
    if (!start) {
      this.#conversation = undefined;
      return;
    }
    const text = conversationText(event.request.messages);
    // The line is canonical, so this is its conversation's text unless the schema dropped a key
    // from a message: then the messages are not what the bytes say, and nothing is remembered.
    const at = start[0].length;
    this.#conversation = holdsAt(line, at, text) ? { text: line.slice(at, at + text.length), messages: event.request.messages.map((message) => immutable(message)) } : undefined;
  }
}

/** Whether `text` is at `at` in `line`; a slice and a compare, many times faster than startsWith on long texts. */
function holdsAt(line: string, at: number, text: string): boolean {
  return line.slice(at, at + text.length) === text;
}

/** The canonical text of messages as the inside of their array. */
function conversationText(messages: readonly Message[]): string {
  return canonicalJson(messages).slice(1, -1);
}
