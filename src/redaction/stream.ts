import { createRedactor, type RedactionSettings } from "./redactor.js";

export interface ScrubbedStream {
  /** Takes the next piece of streamed text; passes on what can be shown already, scrubbed. */
  push(delta: string): void;
  /** The stream ended (or was abandoned): passes on the held-back tail, scrubbed. */
  end(): void;
}

/**
 * Streamed text scrubbed as the log scrubs it (the same settings, so the same known values and
 * patterns), for text that reaches a terminal or a caller before the event that records it. A
 * secret may arrive split across deltas, so the tail that could still be the start of one is
 * held back (`Redactor.cut`) until more text shows it is not, or the stream ends.
 */
export function scrubbedStream(settings: RedactionSettings, sink: (text: string) => void): ScrubbedStream {
  const redactor = createRedactor(settings);
  let pending = "";
  const pass = (text: string) => {
    if (text) sink(redactor.text(text));
  };
  return {
    push(delta) {
      pending += delta;
      const cut = redactor.cut(pending);
      if (cut <= 0) return;
      pass(pending.slice(0, cut));
      pending = pending.slice(cut);
    },
    end() {
      const rest = pending;
      pending = "";
      pass(rest);
    },
  };
}
