import type { RunContext } from "../context/index.js";
import { EVENT_FORMAT_VERSION, type EventPayload, type RunEvent, type RunEventType, type EventOf } from "../contracts/index.js";
import { fold, initialState, type RunState } from "../journal/index.js";
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
  redact?: (payload: EventPayload) => EventPayload;
}

const defaultRedact = eventRedactor();

/**
 * The one writer of a run: stamps each event with the format version, the run id, the next
 * seq and the run clock's time, appends it to the store and keeps the folded state current.
 */
export class RunLog {
  readonly runId: string;
  readonly store: RunStore;
  readonly #clock: RunContext["clock"];
  readonly #events: RunEvent[];
  readonly #redact: (payload: EventPayload) => EventPayload;
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

  now(): number {
    return this.#clock.now();
  }

  append<T extends RunEventType>(payload: EventPayload<T>): EventOf<T> {
    return this.appendAll([payload])[0] as EventOf<T>;
  }

  /** Appends several events in one store transaction: all of them land, or none. */
  appendAll(payloads: readonly EventPayload[]): RunEvent[] {
    let seq = this.#state.lastSeq;
    const at = new Date(this.#clock.now()).toISOString();
    const events = payloads.map((payload) => ({ v: EVENT_FORMAT_VERSION, runId: this.runId, seq: ++seq, at, ...this.#redact(payload) }) as RunEvent);
    this.store.append(events);
    this.#events.push(...events);
    this.#state = fold(events, this.#state);
    return events;
  }
}
