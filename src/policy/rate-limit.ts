import type { RunEvent } from "../contracts/index.js";

export interface LimitSettings {
  max: number;
  /** Window in ms on the run clock; the whole run when absent. */
  perMs?: number;
}

export interface RateLimitSettings {
  run?: LimitSettings;
  tools: Readonly<Record<string, LimitSettings>>;
}

/**
 * Counts calls that started, by the run clock's timestamps in the log, so a replayed run
 * counts exactly what the recorded one did. Calls admitted earlier in the same batch count too.
 */
export class RateLimiter {
  readonly #settings: RateLimitSettings;
  readonly #events: readonly RunEvent[];
  readonly #now: number;
  /** Read from the log on the first check: an agent with no limit never scans its log (once per tool batch, it made a run quadratic). */
  #counted: { name: string; at: number }[] | undefined;
  readonly #admitted: string[] = [];

  constructor(settings: RateLimitSettings, events: readonly RunEvent[], now: number) {
    this.#settings = settings;
    this.#now = now;
    this.#events = events;
  }

  get #started(): { name: string; at: number }[] {
    if (!this.#counted) {
      this.#counted = this.#events.flatMap((event) => (event.type === "tool.started" ? [{ name: event.name, at: Date.parse(event.at) }] : []));
      for (const name of this.#admitted) this.#counted.push({ name, at: this.#now });
    }
    return this.#counted;
  }

  /** A reason the call is over a limit, or undefined. */
  check(name: string): string | undefined {
    const check = (limit: LimitSettings | undefined, scope: string, matches: (entry: { name: string }) => boolean) => {
      if (!limit) return undefined;
      const since = limit.perMs === undefined ? -Infinity : this.#now - limit.perMs;
      const used = this.#started.filter((entry) => entry.at > since && matches(entry)).length;
      if (used < limit.max) return undefined;
      const window = limit.perMs === undefined ? "in this run" : `in the last ${limit.perMs / 1000} s`;
      return `${scope} limit reached: ${used} call(s) ${window} (limit ${limit.max})`;
    };
    return check(this.#settings.tools[name], name, (entry) => entry.name === name) ?? check(this.#settings.run, "run", () => true);
  }

  /** Counts a call admitted in this batch. */
  count(name: string): void {
    if (this.#counted) this.#counted.push({ name, at: this.#now });
    else this.#admitted.push(name);
  }
}
