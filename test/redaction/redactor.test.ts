/** The one redaction pass every recorded event goes through: known secret values, then credential patterns. */
import { describe, expect, it } from "vitest";
import { PROVIDER_KEY_VARIABLES, REDACTION, createRedactor, eventRedactor, isSecretKey, secretValues } from "../../src/redaction/index.js";
import { immutable, isImmutable } from "../../src/canonical/index.js";

const KEY = "sk-test-0123456789abcdefghij";

describe("createRedactor().text", () => {
  it("removes a known secret, also where it is written inside JSON, once or twice escaped", () => {
    const secret = 'pa"ss\\word';
    const redactor = createRedactor({ secrets: [secret], patterns: false });
    expect(redactor.text(`key=${secret}`)).toBe(`key=${REDACTION}`);
    expect(redactor.text(JSON.stringify({ key: secret }))).toBe(`{"key":"${REDACTION}"}`);
    expect(redactor.text(JSON.stringify(JSON.stringify({ key: secret })))).toBe(JSON.stringify(`{"key":"${REDACTION}"}`));
    expect(redactor.text(JSON.stringify(JSON.stringify({ key: secret })))).not.toContain("ss");
  });

  it("removes a longer secret whole before a shorter one inside it", () => {
    const redactor = createRedactor({ secrets: ["abcd", "abcdefgh"], patterns: false });
    expect(redactor.text("x abcdefgh y abcd")).toBe(`x ${REDACTION} y ${REDACTION}`);
    expect(createRedactor({ secrets: ["abcdefgh", "abcd"], patterns: false }).text("abcdefgh")).toBe(REDACTION);
  });

  it("ignores secrets too short to search for and secrets inside the marker itself", () => {
    const redactor = createRedactor({ secrets: ["abc", "dact", "redacted"], patterns: false });
    expect(redactor.text("abc dact redacted")).toBe("abc dact redacted");
    expect(createRedactor().text("nothing secret")).toBe("nothing secret");
  });

  it("removes credential-looking text unless patterns is false", () => {
    expect(createRedactor().text(`the key is ${KEY}`)).toBe(`the key is ${REDACTION}`);
    expect(createRedactor({ patterns: true }).text(`${KEY} and ${KEY}`)).toBe(`${REDACTION} and ${REDACTION}`);
    expect(createRedactor({ patterns: false }).text(`the key is ${KEY}`)).toBe(`the key is ${KEY}`);
    expect(createRedactor().text("AKIAIOSFODNN7EXAMPLE then Bearer abcdefghijklmnopqrstuvwxyz")).toBe(`${REDACTION} then ${REDACTION}`);
  });

  it("removes a secret a replacement spells anew, and gives up on the whole string after four passes", () => {
    const redactor = createRedactor({ secrets: ["d]ab"], patterns: false });
    expect(redactor.text("d]ab")).toBe(REDACTION);
    expect(redactor.text("d]abab")).toBe("[redacte[redacted]");
    expect(redactor.text("d]abababab")).toBe("[redacte[redacte[redacte[redacted]");
    expect(redactor.text("d]ababababab")).toBe(REDACTION);
  });

  it("leaves the strings it is told to keep exactly as they are", () => {
    const redactor = createRedactor({ secrets: ["completed"], keep: new Set(["completed"]) });
    expect(redactor.text("completed")).toBe("completed");
    expect(redactor.text("completed twice")).toBe(`${REDACTION} twice`);
  });
});

describe("createRedactor().value", () => {
  const redactor = createRedactor({ secrets: ["s3cr3t-value"], patterns: false });

  it("redacts every string, object keys included, and leaves other values alone", () => {
    expect(redactor.value({ a: "s3cr3t-value", list: ["ok", "x s3cr3t-value"], n: 1, b: true, z: null, "s3cr3t-value": 2 })).toEqual({
      a: REDACTION,
      list: ["ok", `x ${REDACTION}`],
      n: 1,
      b: true,
      z: null,
      [REDACTION]: 2,
    });
  });

  it("returns a part without secrets as it is, not a copy", () => {
    const clean = { a: { b: ["x", { c: "y" }] }, d: [1, 2] };
    expect(redactor.value(clean)).toBe(clean);
    const mixed = { clean: { x: 1 }, list: ["a", "s3cr3t-value"], other: ["b"] };
    const redacted = redactor.value(mixed);
    expect(redacted).not.toBe(mixed);
    expect(redacted.clean).toBe(mixed.clean);
    expect(redacted.other).toBe(mixed.other);
    expect(mixed.list).toEqual(["a", "s3cr3t-value"]);
  });

  it("keeps a __proto__ key as data when it redacts the object around it", () => {
    const redactor = createRedactor({ secrets: ["abcd1234"], patterns: false });
    const redacted = redactor.value(JSON.parse('{"__proto__": {"k": "abcd1234"}, "x": "abcd1234"}') as unknown) as Record<string, unknown>;
    expect(Object.getPrototypeOf(redacted)).toBe(Object.prototype);
    expect(Object.keys(redacted)).toEqual(["__proto__", "x"]);
    expect(JSON.stringify(redacted)).toBe(`{"__proto__":{"k":"${REDACTION}"},"x":"${REDACTION}"}`);
  });

  it("numbers keys that only differed in a secret, so none is lost", () => {
    expect(redactor.value({ "s3cr3t-value": 1, [REDACTION]: 2, "[redacted]#2": 3 })).toEqual({ [REDACTION]: 1, "[redacted]#2": 2, "[redacted]#2#2": 3 });
    const three = createRedactor({ secrets: ["aaaa", "bbbb"], patterns: false }).value({ aaaa: 1, bbbb: 2, [REDACTION]: 3 });
    expect(three).toEqual({ [REDACTION]: 1, "[redacted]#2": 2, "[redacted]#3": 3 });
  });
});

describe("eventRedactor", () => {
  it("redacts every field of an event but its type, and returns the event itself when nothing changed", () => {
    const redact = eventRedactor({ secrets: [KEY] });
    const clean = { type: "message" as const, role: "user", content: "hello" };
    expect(redact(clean)).toBe(clean);
    expect(redact({ type: "message" as const, role: "user", content: `my key is ${KEY}` })).toEqual({ type: "message", role: "user", content: `my key is ${REDACTION}` });
  });

  it("never changes a word of the event format, whatever the secrets are", () => {
    const words = ["completed", "failed", "running", "waiting", "threw", "timeout", "not_run", "policy_denied", "mode_blocked", "rate_limited", "guardrail", "user", "input", "output", "block", "warn", "redact", "approval", "child_waiting"];
    const redact = eventRedactor({ secrets: words });
    for (const word of words) {
      const event = { type: "guardrail" as const, field: word };
      expect(redact(event), word).toBe(event);
      // In longer text the word is a secret like any other (but "redact", which the marker itself spells).
      if (word !== "redact") expect(redact({ type: "guardrail" as const, field: `${word} here` }), word).toEqual({ type: "guardrail", field: `${REDACTION} here` });
    }
  });

  it("removes credential patterns unless told not to", () => {
    expect(eventRedactor()({ type: "message" as const, content: KEY })).toEqual({ type: "message", content: REDACTION });
    expect(eventRedactor({ patterns: false })({ type: "message" as const, content: KEY })).toEqual({ type: "message", content: KEY });
  });

  it("is made once per settings object, and again for settings changed in place", () => {
    const secrets = [KEY];
    const settings = { secrets };
    const first = eventRedactor(settings);
    expect(eventRedactor(settings)).toBe(first);
    secrets.push("hunter2-hunter2");
    const after = eventRedactor(settings);
    expect(after).not.toBe(first);
    expect(eventRedactor(settings)).toBe(after);
    expect(after({ type: "message" as const, content: "pw hunter2-hunter2" })).toEqual({ type: "message", content: `pw ${REDACTION}` });
    expect(first({ type: "message" as const, content: "pw hunter2-hunter2" })).toEqual({ type: "message", content: "pw hunter2-hunter2" });
    const patterns: { patterns?: boolean } = {};
    const withPatterns = eventRedactor(patterns);
    patterns.patterns = false;
    expect(eventRedactor(patterns)).not.toBe(withPatterns);
    expect(eventRedactor(patterns)({ type: "message" as const, content: KEY })).toEqual({ type: "message", content: KEY });
  });

  it("redacts an immutable part once and gives every run of the same settings the same redacted part", () => {
    const config = immutable({ llm: { note: `key ${KEY}` }, name: "a" });
    const settings = { secrets: [KEY] };
    const one = eventRedactor(settings)({ type: "run.started" as const, config });
    const two = eventRedactor(settings)({ type: "run.started" as const, config });
    expect(one.config).toEqual({ llm: { note: `key ${REDACTION}` }, name: "a" });
    expect(two.config).toBe(one.config);
    expect(isImmutable(one.config)).toBe(true);
    // Other settings redact it on their own.
    expect(eventRedactor({ patterns: false })({ type: "run.started" as const, config }).config).toBe(config);
  });

  it("never redacts the event's type, even when it is a secret", () => {
    expect(eventRedactor({ secrets: ["message"] })({ type: "message" as const, content: "a message" })).toEqual({ type: "message", content: `a ${REDACTION}` });
  });

  it("knows the variables providers read their keys from", () => {
    expect(PROVIDER_KEY_VARIABLES).toEqual(["OPENAI_API_KEY", "ANTHROPIC_API_KEY"]);
  });
});

describe("secretValues and isSecretKey", () => {
  it("collect every string under a secret-named key, however deep, in order", () => {
    expect(
      secretValues({
        llm: { api_key: "k1", model: "gpt" },
        servers: [{ name: "a", token: "t1" }, { credentials: { user: "u", pass: ["p1", "p2"], port: 5 } }],
        password: 42,
        plain: "not a secret",
      }),
    ).toEqual(["k1", "t1", "u", "p1", "p2"]);
    expect(secretValues(["a", "b"])).toEqual([]);
    expect(secretValues("text")).toEqual([]);
    expect(secretValues(null)).toEqual([]);
  });

  it("say whether a name holds a secret", () => {
    expect(isSecretKey("GITHUB_TOKEN")).toBe(true);
    expect(isSecretKey("OPENAI_API_KEY")).toBe(true);
    expect(isSecretKey("max_tokens")).toBe(false);
    expect(isSecretKey("HOME")).toBe(false);
  });
});
