/**
 * Redaction: credentials never reach a log, an error message or a bundle. Three passes today —
 * secret-looking text (SECRET_PATTERNS, used by the redact_secrets guardrail), known key values in
 * provider messages (scrubSecrets, providerError), and secret-named config keys (redactSecrets).
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { providerError, safeCause } from "../../src/providers/http/index.js";
import { REDACTED, REDACTION, SECRET_PATTERNS, redactSecrets, scrubSecrets, searchable } from "../../src/redaction/index.js";
import { MAY_LOOK_SECRET } from "../../src/redaction/patterns.js";

/** Every secret pattern applied to the text, as the redact_secrets guardrail does. */
const redactText = (text: string) => SECRET_PATTERNS.reduce((out, { pattern }) => out.replace(pattern, REDACTION), text);
const matchedBy = (text: string) => SECRET_PATTERNS.filter(({ pattern }) => new RegExp(pattern.source, pattern.flags).test(text)).map(({ name }) => name);

const alnum = (length: number, seed = "aB3") => Array.from({ length }, (_, index) => seed[index % seed.length]).join("");

describe("SECRET_PATTERNS", () => {
  it("are all seen by the one-scan test that lets ordinary text skip them", () => {
    for (const { pattern } of SECRET_PATTERNS) {
      // fast-check cannot generate \b or lookaheads: without them the pattern matches more, so
      // the strings generated include every match of the real pattern's shape.
      const source = pattern.source.replaceAll("\\b", "").replaceAll("(?=[A-Za-z0-9])", "");
      fc.assert(
        fc.property(fc.stringMatching(new RegExp(`^(?:${source})$`)), fc.string(), fc.string(), (match, before, after) => {
          expect(MAY_LOOK_SECRET.test(before + match + after), match).toBe(true);
        }),
        { numRuns: 200 },
      );
    }
  });

  it("replace with one marker", () => {
    expect(REDACTION).toBe("[redacted]");
    expect(REDACTED).toBe(REDACTION);
    expect(SECRET_PATTERNS.map(({ name }) => name)).toEqual(["openai_key", "aws_access_key", "github_token", "slack_token", "bearer_token", "private_key"]);
  });

  it.each([
    ["an OpenAI key", `sk-${alnum(48)}`, "openai_key"],
    ["an OpenAI project key", `sk-proj-${alnum(40, "x_Y-9")}`, "openai_key"],
    ["an Anthropic key", `sk-ant-${alnum(40)}`, "openai_key"],
    ["an AWS access key", "AKIAIOSFODNN7EXAMPLE", "aws_access_key"],
    ["an AWS session key", "ASIAIOSFODNN7EXAMPLE", "aws_access_key"],
    ...["ghp", "gho", "ghu", "ghs", "ghr", "github_pat"].map((prefix) => [`a GitHub ${prefix} token`, `${prefix}_${alnum(36, "a_Z9")}`, "github_token"]),
    ...["a", "b", "p", "r", "s"].map((kind) => [`a Slack xox${kind} token`, `xox${kind}-1234-abcd-${alnum(12)}`, "slack_token"]),
    ["a bearer token", `Bearer ${alnum(32, "aZ9._~+/-")}==`, "bearer_token"],
    ["a bearer token after several spaces", `Bearer \t ${alnum(20)}`, "bearer_token"],
  ])("take %s out whole, wherever it stands in the text", (_name, secret, name) => {
    expect(matchedBy(secret)).toContain(name);
    expect(redactText(secret)).toBe(REDACTION);
    expect(redactText(`key: ${secret}\n`)).toBe(`key: ${REDACTION}\n`);
    expect(redactText(`${secret} and again ${secret}`)).toBe(`${REDACTION} and again ${REDACTION}`);
  });

  it("take out each PEM private key block, and only the blocks", () => {
    const block = (kind: string) => `-----BEGIN ${kind}PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7\n-----END ${kind}PRIVATE KEY-----`;
    expect(redactText(block(""))).toBe(REDACTION);
    expect(redactText(block("RSA "))).toBe(REDACTION);
    expect(redactText(block("OPENSSH "))).toBe(REDACTION);
    const encrypted = "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,3F17F5316E2BAC89\n\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----";
    expect(redactText(encrypted)).toBe(REDACTION);
    expect(redactText(`first ${block("")} between ${block("EC ")} after`)).toBe(`first ${REDACTION} between ${REDACTION} after`);
    expect(redactText("-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----")).toBe("-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----");
  });

  it.each([
    ["a key too short to be one", `sk-${alnum(15)}`],
    ["sk- inside a word", `task-${alnum(30)}`],
    ["an AWS-like id one character short", "AKIAIOSFODNN7EXAMPL"],
    ["an AWS-like id one character long", "AKIAIOSFODNN7EXAMPLE1"],
    ["an AWS-like id in lower case", "akiaiosfodnn7example"],
    ["a GitHub-like token too short", `ghp_${alnum(19)}`],
    ["an unknown GitHub prefix", `ghx_${alnum(30)}`],
    ["a Slack-like token too short", "xoxb-123456789"],
    ["an unknown Slack kind", `xoxz-${alnum(20)}`],
    ["a bearer token too short", `Bearer ${alnum(15)}`],
    ["bearer in lower case", `bearer ${alnum(30)}`],
    ["Bearer inside a word", `XBearer ${alnum(30)}`],
    ["Bearer without a token", `Bearer: ${alnum(30)}`],
  ])("leave %s alone", (_name, text) => {
    expect(redactText(text)).toBe(text);
  });

  it("leave ordinary prose alone", () => {
    const word = fc.stringMatching(/^[a-z]{1,12}$/);
    fc.assert(
      fc.property(fc.array(word, { maxLength: 30 }), (words) => {
        const text = words.join(" ");
        expect(redactText(text)).toBe(text);
      }),
    );
  });
});

describe("scrubSecrets", () => {
  const secret = fc.stringMatching(/^[0-9a-f]{4,24}$/).filter((value) => !`Bearer ${REDACTION}`.includes(value));

  it("removes every occurrence of every known secret, wherever it is", () => {
    fc.assert(
      fc.property(fc.array(secret, { minLength: 1, maxLength: 3 }), fc.array(fc.string({ maxLength: 12 }), { minLength: 1, maxLength: 4 }), (secrets, parts) => {
        const text = parts.map((part, index) => part + (secrets[index % secrets.length] as string)).join("");
        const scrubbed = scrubSecrets(text, secrets);
        for (const value of secrets) expect(scrubbed).not.toContain(value);
      }),
    );
    expect(scrubSecrets("bad key abcd1234 (abcd1234), also ffff", ["abcd1234", "ffff"])).toBe("bad key [redacted] ([redacted]), also [redacted]");
  });

  it("leaves text without a known secret or bearer token as it is", () => {
    fc.assert(
      fc.property(fc.string(), secret, (text, value) => {
        fc.pre(!text.includes(value) && !/bearer/i.test(text));
        expect(scrubSecrets(text, [value])).toBe(text);
      }),
    );
  });

  it("ignores secrets shorter than four characters, which would shred ordinary words", () => {
    expect(scrubSecrets("the cat sat", ["at", "cat"])).toBe("the cat sat");
    expect(scrubSecrets("the cats sat", ["cats"])).toBe("the [redacted] sat");
  });

  it("removes any bearer token, in any case, up to a space, quote, comma or semicolon", () => {
    expect(scrubSecrets("Authorization: Bearer abc.def-123", [])).toBe("Authorization: Bearer [redacted]");
    expect(scrubSecrets('{"auth":"bearer tok1","next":1}', [])).toBe('{"auth":"bearer [redacted]","next":1}');
    expect(scrubSecrets("BEARER t1, then BEARER t2; end", [])).toBe("BEARER [redacted], then BEARER [redacted]; end");
    expect(scrubSecrets("Bearer abc'def", [])).toBe("Bearer [redacted]'def");
    expect(scrubSecrets("Bearer\tabc def", [])).toBe("Bearer [redacted] def");
    expect(scrubSecrets("Bearer  \t abc def", [])).toBe("Bearer [redacted] def");
    expect(scrubSecrets("NotBearer abc", [])).toBe("NotBearer abc");
  });
});

describe("searchable", () => {
  it("keeps the secrets long enough to search for: four characters or more", () => {
    expect(searchable(["abc", "abcd", "", "sk-long-key"])).toEqual(["abcd", "sk-long-key"]);
  });
});

describe("safeCause", () => {
  it("is the error itself when no secret is in it, and undefined when one is, however deep", () => {
    const clean = new Error("socket hang up", { cause: { body: { error: "busy" } } });
    expect(safeCause(clean, ["sk-the-real-key"])).toBe(clean);
    const leaky = new Error("request failed", { cause: { response: { body: { error: { echo: "sk-the-real-key" } } } } });
    expect(safeCause(leaky, ["sk-the-real-key"])).toBeUndefined();
    expect(safeCause("plain text sk-the-real-key", ["other", "sk-the-real-key"])).toBeUndefined();
  });
});

describe("providerError", () => {
  const context = { provider: "openai", label: "OpenAI", model: "gpt-test", secrets: ["sk-the-real-key"] };

  it("scrubs the key out of the message", () => {
    const error = providerError(context, "auth", "invalid key sk-the-real-key");
    expect(error).toMatchObject({ kind: "auth", provider: "openai", message: "invalid key [redacted]" });
  });

  it("keeps a cause that holds no secret", () => {
    const cause = new Error("socket hang up", { cause: { body: { error: "busy" } } });
    expect(providerError(context, "server", "busy", { cause }).cause).toBe(cause);
  });

  it("drops a cause that holds a secret anywhere: its message, a nested cause, a parsed body", () => {
    const inMessage = new Error("rejected sk-the-real-key");
    const inNestedCause = new Error("request failed", { cause: new Error("proxy said: sk-the-real-key is invalid") });
    const deepInBody = Object.assign(new Error("400"), { body: { error: { details: { echo: { header: "sk-the-real-key" } } } } });
    for (const cause of [inMessage, inNestedCause, deepInBody]) expect(providerError(context, "auth", "failed", { cause }).cause).toBeUndefined();
  });

  it("keeps a cause that only holds a secret too short to search for", () => {
    const cause = new Error("abc");
    expect(providerError({ ...context, secrets: ["abc"] }, "auth", "failed", { cause }).cause).toBe(cause);
  });
});

describe("redactSecrets", () => {
  it.each([
    "api_key",
    "apikey",
    "api-key",
    "API_KEY",
    "apiKey",
    "openai_api_key",
    "x-api-key",
    "token",
    "github_token",
    "access_token",
    "accesstoken",
    "access-token",
    "secret",
    "client_secret",
    "clientsecret",
    "client-secret",
    "password",
    "db_password",
    "passwd",
    "Authorization",
    "credential",
    "credentials",
    "private_key",
    "privatekey",
    "private-key",
    "access.token",
    "x.api_key",
    "my.password",
    "llm.client-secret",
    "githubToken",
    "XApiKey",
    "APIKey",
    "openai.apiKey",
    "x api key",
  ])("redacts the value of a key named %s", (key) => {
    expect(redactSecrets({ [key]: "s3cr3t", other: "kept" })).toEqual({ [key]: REDACTED, other: "kept" });
  });

  it.each(["max_tokens", "redact_secrets", "tokenizer", "api_key_file", "secretary", "mytoken", "token_budget", "api.key.file", "sort_key", "monkey", "secrets.path", "tokenCount"])(
    "keeps the value of a key named %s, which only contains a secret word",
    (key) => {
      expect(redactSecrets({ [key]: 100 })).toEqual({ [key]: 100 });
    },
  );

  it("redacts whatever the value is, but keeps an absent one absent", () => {
    expect(redactSecrets({ token: { nested: "x" }, api_key: 42, password: null, secret: undefined })).toEqual({
      token: REDACTED,
      api_key: REDACTED,
      password: null,
      secret: undefined,
    });
  });

  it("redacts inside nested objects and arrays, and returns a copy", () => {
    const config = { llm: { api_key: "k", model: "m" }, servers: [{ name: "a", token: "t" }, "plain"], count: 3 };
    const redacted = redactSecrets(config);
    expect(redacted).toEqual({ llm: { api_key: REDACTED, model: "m" }, servers: [{ name: "a", token: REDACTED }, "plain"], count: 3 });
    expect(config.llm.api_key).toBe("k");
  });

  it("keeps a __proto__ key as data, redacting under it, and sets no prototype", () => {
    const redacted = redactSecrets(JSON.parse('{"__proto__": {"token": "t", "n": 1}, "b": 2}')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(redacted)).toBe(Object.prototype);
    expect(Object.keys(redacted)).toEqual(["__proto__", "b"]);
    expect(Object.getOwnPropertyDescriptor(redacted, "__proto__")?.value).toEqual({ token: REDACTED, n: 1 });
    expect(redactSecrets(JSON.parse('[{"__proto__": 1}]'))).toEqual(JSON.parse('[{"__proto__": 1}]'));
  });

  it("changes nothing in data without secret-named keys", () => {
    const key = fc.oneof(fc.stringMatching(/^[a-z]{1,8}$/), fc.constant("__proto__")).filter((name) => !/token|secret|password|passwd|authorization|credential|apikey|privatekey/.test(name));
    fc.assert(
      fc.property(fc.jsonValue(), fc.dictionary(key, fc.jsonValue()), (value, record) => {
        fc.pre(!/token|secret|password|passwd|authorization|credential|api[_-]?key|private[_-]?key/i.test(JSON.stringify([value, record])));
        expect(redactSecrets(value)).toEqual(value);
        expect(redactSecrets(record)).toEqual(record);
      }),
    );
  });
});
