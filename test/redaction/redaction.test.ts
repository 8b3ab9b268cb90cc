import fc from "fast-check";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { AgentRun } from "../../src/agent/index.js";
import { canonicalJson } from "../../src/canonical/index.js";
import { buildAgent, parseConfig } from "../../src/config/index.js";
import { RunEventSchema, type ResponseEntry, type RunEvent } from "../../src/contracts/index.js";
import { fold } from "../../src/journal/index.js";
import { ScriptedModel } from "../../src/providers/scripted/index.js";
import { createRedactor, REDACTION } from "../../src/redaction/index.js";
import { MemoryRunStore, SqliteRunStore } from "../../src/store/index.js";
import { defineTool, type AnyTool } from "../../src/tools/index.js";
import { scriptedAgent, tempDir, testContext } from "../helpers.js";

/** Every form a value can take in a stored log: as is, and escaped inside JSON text. */
const forms = (secret: string): string[] => [secret, JSON.stringify(secret).slice(1, -1), JSON.stringify(JSON.stringify(secret)).slice(2, -2)];

function leaks(events: readonly RunEvent[], secrets: readonly string[]): string[] {
  const text = events.map((event) => canonicalJson(event)).join("\n");
  return secrets.filter((secret) => forms(secret).some((form) => text.includes(form)));
}

/** Echoes its text and the secret it was built with; throws when asked to. */
const leakyTool = (secret: string): AnyTool =>
  defineTool({
    name: "leak",
    description: "Returns what it is given, and a secret of its own.",
    input: z.object({ text: z.string(), fail: z.boolean().optional() }),
    run: ({ text, fail }) => {
      if (fail) throw new Error(`could not use ${secret} for ${text}`);
      return { text, own: secret, [`key_${secret}`]: 1 };
    },
  }) as AnyTool;

describe("secrets are removed from everything the log records", () => {
  it("F: a key the model repeats is gone from llm.finished, the folded conversation and run.finished", async () => {
    const secret = "sk-proj-abcdefghijklmnopqrstuvwxyz012345";
    const agent = scriptedAgent({ responses: [{ text: `the key is ${secret}` }] });
    const run = AgentRun.start(agent, { store: new MemoryRunStore(), context: testContext() });
    const outcome = await run.send("key?");
    expect(outcome.output).toBe(`the key is ${REDACTION}`);
    expect(leaks(run.log.events, [secret])).toEqual([]);
    expect(JSON.stringify(fold(run.log.events).messages)).not.toContain(secret);
    expect(run.log.events.find((event) => event.type === "llm.finished")).toMatchObject({ response: { text: `the key is ${REDACTION}` } });
  });

  it("removes the values of the keys a config names and of the provider variables, in a real SQLite file", async () => {
    const configKey = "cfg-key-0f9e8d7c6b5a";
    const providerKey = "prov-key-1a2b3c4d5e6f";
    const tokenValue = "tok-value-99887766";
    const env = { MY_KEY: configKey, ANTHROPIC_API_KEY: providerKey, DEPLOY_TOKEN: tokenValue };
    const yaml = "name: a\nllm: {provider: openai, api_key: '${MY_KEY}'}\nsystem_prompt: 'deploy with ${DEPLOY_TOKEN}'\n";
    const { config, missingEnv, secrets } = parseConfig(yaml, { file: "agent.yaml", env });
    const script = {
      responses: [
        { tool_calls: [{ name: "leak", arguments: { text: `${providerKey} and ${tokenValue}` } }, { name: "leak", arguments: { text: "x", fail: true } }] },
        { text: `done: ${configKey}` },
      ],
    } satisfies { responses: ResponseEntry[] };
    const agent = await buildAgent(
      { config, file: "agent.yaml", baseDir: tempDir(), missingEnv, secrets },
      { mock: new ScriptedModel(script), tools: [leakyTool(configKey)], env },
    );
    const dir = tempDir();
    const store = new SqliteRunStore(join(dir, "runs.db"));
    const run = AgentRun.start(agent, { store, context: testContext() });
    const outcome = await run.send(`use ${configKey}, please`);
    expect(outcome.status).toBe("completed");
    const events = store.read(run.runId);
    const all = [configKey, providerKey, tokenValue];
    expect(leaks(events, all)).toEqual([]);
    for (const event of events) expect(RunEventSchema.safeParse(event).success).toBe(true);
    store.close();
    for (const file of readdirSync(dir)) {
      const bytes = readFileSync(join(dir, file)).toString("latin1");
      expect(all.filter((secret) => bytes.includes(secret)), file).toEqual([]);
    }
  });
});

const KEY_CHARS = [..."ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~+/=\"\\"];
const secretArb = fc
  .array(fc.constantFrom(...KEY_CHARS), { minLength: 8, maxLength: 32 })
  .map((chars) => chars.join(""))
  .filter((secret) => !REDACTION.includes(secret));
const plainArb = fc.string({ maxLength: 20 });

/** Text made of plain pieces and secrets, in any order. */
const textWith = (secrets: readonly string[]) =>
  fc.array(fc.oneof(plainArb, fc.constantFrom(...secrets)), { maxLength: 6 }).map((parts) => parts.join(" "));

describe("property (5): no secret value survives the scrub", () => {
  it("for random secrets placed anywhere in a run: input, model text, tool arguments, tool results, errors", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(secretArb, { minLength: 1, maxLength: 3 }).chain((secrets) =>
          fc.record({
            secrets: fc.constant(secrets),
            input: textWith(secrets),
            args: fc.array(fc.record({ text: textWith(secrets), fail: fc.boolean() }), { minLength: 1, maxLength: 2 }),
            answer: textWith(secrets),
          }),
        ),
        async ({ secrets, input, args, answer }) => {
          const script = { responses: [{ tool_calls: args.map((arg) => ({ name: "leak", arguments: arg })) }, { text: answer }] };
          const agent = scriptedAgent(script, { tools: [leakyTool(secrets[0] as string)], redaction: { secrets } });
          const run = AgentRun.start(agent, { store: new MemoryRunStore(), context: testContext() });
          const outcome = await run.send(input);
          expect(outcome.status).toBe("completed");
          expect(leaks(run.log.events, secrets)).toEqual([]);
          expect(JSON.stringify(fold(run.log.events).messages)).not.toContain(secrets[0]);
          for (const event of run.log.events) expect(RunEventSchema.safeParse(event).success).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("text and values without secrets come out unchanged (the same objects)", () => {
    const redactor = createRedactor({ secrets: ["never-in-the-text-0000"] });
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = JSON.stringify(value) ?? "";
        fc.pre(!text.includes("never-in-the-text-0000") && redactor.text(text) === text);
        expect(redactor.value(value)).toBe(value);
      }),
    );
    fc.assert(
      fc.property(fc.string(), (text) => {
        // Only text that looks like a credential (sk-…, AKIA…, PEM blocks) is changed.
        fc.pre(!/sk-|AKIA|ASIA|gh[pousr]_|github_pat_|xox[abprs]-|Bearer|-----BEGIN/.test(text));
        expect(redactor.text(text)).toBe(text);
      }),
    );
  });

  it("any text with secrets in it comes out without them", () => {
    fc.assert(
      fc.property(fc.uniqueArray(secretArb, { minLength: 1, maxLength: 4 }).chain((secrets) => fc.tuple(fc.constant(secrets), textWith(secrets))), ([secrets, text]) => {
        const scrubbed = createRedactor({ secrets }).text(text);
        for (const secret of secrets) expect(scrubbed).not.toContain(secret);
      }),
    );
  });
});
