/**
 * What "a resumed log equals the uninterrupted log" means, defined once for every test that
 * claims it (test/agent/resume.test.ts, test/agent/run-path.test.ts, the crash harness).
 *
 * A resume adds to a log only what the crash made true:
 * - `run.resumed` logged while the run was not paused (a process took over after a crash; the
 *   one that ends a pause is part of any run that pauses, and stays);
 * - each interrupted model attempt: its `llm.started`, which the killed process logged, and the
 *   `llm.interrupted` the resume closed it with. The call is then asked again as the next
 *   attempt, so every later attempt of that step carries a number one higher per interruption
 *   before it.
 * (An `llm.interrupted` closes the step's last `llm.started`: a step's number repeats in a
 * later turn when a turn ended on a failed step, so (step, attempt) alone does not name it.)
 * `resumeEquivalent` takes those out and undoes the renumbering (attempt numbers, and seq so it
 * stays gapless). What is left must equal the uninterrupted log byte for byte: the bodies are
 * rewritten in place, keeping the stored key order, and re-serialised as stored.
 */
import type { RunEvent } from "../../src/contracts/index.js";

type Body = RunEvent & Record<string, unknown>;

export function resumeEquivalent(bodies: readonly string[]): string[] {
  const kept: Body[] = [];
  // Interruptions so far in the current step; its later attempts move down by that many.
  let shift = 0;
  let lastStarted = -1;
  let paused = false;
  for (const body of bodies) {
    const event = JSON.parse(body) as Body;
    switch (event.type) {
      case "run.paused":
        paused = true;
        break;
      case "run.resumed":
        if (!paused) continue;
        paused = false;
        break;
      case "message":
        shift = 0;
        break;
      case "llm.interrupted":
        // It closes the step's last attempt, which the killed process started.
        kept.splice(lastStarted, 1);
        lastStarted = -1;
        shift++;
        continue;
      case "llm.started":
        event.attempt -= shift;
        lastStarted = kept.length;
        break;
      case "llm.failed":
        event.attempt -= shift;
        break;
      case "llm.finished":
        event.attempt -= shift;
        shift = 0;
        break;
      default:
        break;
    }
    kept.push(event);
  }
  return kept.map((event, index) => {
    event.seq = index + 1;
    return JSON.stringify(event);
  });
}

/** The (step, attempt) of every `llm.started` in a log, in order: what tests of attempt numbering compare. */
export function attemptsOf(bodies: readonly (string | RunEvent)[]): string[] {
  return bodies.flatMap((body) => {
    const event = typeof body === "string" ? (JSON.parse(body) as RunEvent) : body;
    return event.type === "llm.started" ? [`${event.step}/${event.attempt}`] : [];
  });
}
