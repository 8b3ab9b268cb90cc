import type { RunContext } from "../context/index.js";
import { EventFormatError } from "../errors/index.js";
import { EVENT_FORMAT_VERSION, type EventPayload, type RunEvent, type RunEventType, type EventOf } from "../contracts/index.js";
import { fold, initialState, isoTime, preparePayload, stampPayloads, type PreparedPayload, type RunState, type Stamp } from "../journal/index.js";
import type { RunStore } from "../contracts/index.js";
import { eventRedactor } from "../redaction/index.js";

export interface RunLogOptions {
  /**
   * Applied to every payload before it is stamped and stored. Secrets are removed here, where
   * events are written, rather than where they are read out: then the store file, `trace --json`,
   * a bundle and the state the run itself folds (the conversation the model is sent next) all
   * hold the same redacted text, a replay reads the very log the live run acted on, and nothing
   * exported later has to remember to scrub. Default: credential-looking text only.
   */
  redact?: <P extends { type: RunEventType }>(payload: P) => P;
}

const defaultRedact = eventRedactor();

/**
 * What a writer hands to the log. An `llm.finished` carries no duration: the log derives it
 * from the `at` of the attempt's `llm.started` and its own, so time enters a run only as `at`.
 */
export type LogPayload = EventPayload extends infer P
  ? P extends { type: "llm.finished" }
    ? Omit<P, "durationMs">
    : P
  : never;

/**
 * The one writer of a run: stamps each event with the format version, the run id, the next
 * seq and the run clock's time, serialises it once to its canonical bytes, appends those bytes
 * to the store and keeps the folded state current.
 *
 * Time is a logged input: the clock is read exactly once per appended event, here, and the
 * run path reads time nowhere else — it takes it from the `at` of events already in the log
 * (`timeOf`, `latestTime`), so a replay clock only has to serve the recorded `at` values.
 */
export class RunLog {
  readonly runId: string;
  readonly store: RunStore;
  readonly #clock: RunContext["clock"];
  readonly #events: RunEvent[];
  readonly #redact: <P extends { type: RunEventType }>(payload: P) => P;
  /** Payloads `refusal` checked, so that appending them does not check them again. */
  readonly #prepared = new WeakMap<LogPayload, PreparedPayload>();
  #state: RunState;

  private constructor(runId: string, store: RunStore, clock: RunContext["clock"], events: RunEvent[], options: RunLogOptions) {
    this.#redact = options.redact ?? defaultRedact;
    this.runId = runId;
    this.store = store;
    this.#clock = clock;
    this.#events = events;
    this.#state = fold(events, initialState());
  }

  static create(runId: string, store: RunStore, clock: RunContext["clock"], options: RunLogOptions = {}): RunLog {
    return new RunLog(runId, store, clock, [], options);
  }

  /** Loads a run's whole log to continue it. */
  static open(runId: string, store: RunStore, clock: RunContext["clock"], options: RunLogOptions = {}): RunLog {
    return new RunLog(runId, store, clock, store.read(runId), options);
  }

  get events(): readonly RunEvent[] {
    return this.#events;
  }

  get state(): RunState {
    return this.#state;
  }

  /** An event's time, epoch ms. */
  static timeOf(event: Pick<RunEvent, "at">): number {
    return Date.parse(event.at);
  }

  /** The time of the latest event of one of `types` (of any type when omitted); undefined if none. */
  latestTime(types?: readonly RunEventType[]): number | undefined {
    for (let index = this.#events.length - 1; index >= 0; index--) {
      const event = this.#events[index] as RunEvent;
      if (!types || types.includes(event.type)) return RunLog.timeOf(event);
    }
    return undefined;
  }

  /**
   * Why these payloads could not be stored (a NaN, a value canonical JSON would change, a schema
   * violation), or undefined when they can. Reads no clock and writes nothing, so a writer can
   * turn an unstorable outcome into a stored failure instead of an exception. The check is the
   * one appending does, and is kept: appending these same payload objects next checks nothing
   * twice (so a payload must not change between the two).
   */
  refusal(payloads: readonly LogPayload[]): string | undefined {
    for (const payload of payloads) {
      try {
        this.#prepared.set(payload, this.#prepare(payload, { runId: this.runId }));
      } catch (error) {
        if (!(error instanceof EventFormatError)) throw error;
        return `${payload.type}${error.place.path ? ` at ${error.place.path}` : ""}: ${error.message}`;
      }
    }
    return undefined;
  }

  #prepare(written: LogPayload, place: { runId: string; seq?: number }): PreparedPayload {
    const prepared = this.#prepared.get(written);
    if (!prepared) return preparePayload(this.#redact(written), place);
    this.#prepared.delete(written);
    return prepared;
  }

  append<T extends RunEventType>(payload: Extract<LogPayload, { type: T }>): EventOf<T> {
    return this.appendAll([payload])[0] as EventOf<T>;
  }

  /**
   * Appends several events in one store transaction: all of them land, or none. Each payload is
   * redacted, checked and copied once (`preparePayload`), stamped, and serialised once; the
   * store takes those bytes with the checked events, and validates nothing twice.
   */
  appendAll(payloads: readonly LogPayload[]): RunEvent[] {
    let seq = this.#state.lastSeq;
    let started = this.#state.pendingLlm ? RunLog.timeOf(this.#state.pendingLlm) : undefined;
    const items = payloads.map((written) => {
      const payload = this.#prepare(written, { runId: this.runId, seq: seq + 1 });
      const now = this.#clock.now();
      const stamp: Stamp = { v: EVENT_FORMAT_VERSION, runId: this.runId, seq: ++seq, at: isoTime(now) };
      if (payload.type === "llm.finished") stamp.durationMs = Math.max(0, now - (started ?? now));
      if (payload.type === "llm.started") started = RunLog.timeOf(stamp);
      return { stamp, payload };
    });
    const bodies = stampPayloads(items);
    // The log's own copy is what the store gives back for the bytes (the checked copy, equal to
    // what parsing them gives), so this process folds exactly what a process that opens the run
    // later will fold, and shares no object with the writer.
    const events = this.store.appendRaw(bodies);
    this.#events.push(...events);
    this.#state = fold(events, this.#state);
    return events;
  }
}
