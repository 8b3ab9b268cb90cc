/**
 * fixtures/evals/failing holds cases that are meant to fail, one per assertion and one per
 * other way a case can fail. Each must fail, and for the reason it was written for.
 */
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { EvalReport } from "../../src/eval/report/schema.js";
import { readJsonReport, retrace, tempDir, type CliRun } from "./cli-helpers.js";

const expected: Record<string, RegExp> = {
  "calledTool fails when the tool never ran": /calledTool\("calculator"\): calculator was never called; calls: none/,
  "calledTool fails when the only call failed": /calculator was requested 1 time but never ran to completion: .*failed: threw/,
  "calledToolWith fails on other arguments":
    /no call of calculator had arguments matching \{"expression":"3 \+ 3"\}; the nearest, \S+, differs at expression: expected "3 \+ 3", got "2 \+ 2"; calls: calculator\(\{"expression":"2 \+ 2"\}\) finished/,
  "check on large data shows where it differs": /^check\(.*\): at key42\.value: expected 42, got 41 \(expected \{/,
  "notCalledTool fails when the tool ran": /notCalledTool\("calculator"\): calculator was called 1 time/,
  "toolWasBlocked fails when the call ran": /toolWasBlocked\("calculator"\): calculator was not blocked: .*finished/,
  "toolWasBlocked fails on another reason": /write_file was blocked with mode_blocked, expected policy_denied/,
  "toolSequence fails on the wrong order": /expected calls in order \[calculator\(\{"expression":"2 \+ 2"\}\), calculator\(\{"expression":"1 \+ 1"\}\)\]; got \[calculator\(\{"expression":"1 \+ 1"\}\), calculator\(\{"expression":"2 \+ 2"\}\)\]/,
  "usedNoTools fails when a tool was requested": /usedNoTools\(\): expected no tool calls; the model requested calculator/,
  "completed fails when the run failed": /completed\(\): expected the run to be completed; it was failed \(provider_auth: bad key\)/,
  "failed fails when the run completed": /failed\(\): expected the run to be failed; it was completed/,
  "retrievedChunk fails without a retrieval": /no chunk containing "request key" was retrieved: the run made no retrieval/,
  "blocked fails when no guardrail blocked": /blocked\(\): expected a guardrail block; guardrail events: none/,
  "warned fails when no guardrail warned": /warned\(\): expected a guardrail warn; guardrail events: none/,
  "outputContains fails on missing text": /outputContains\("goodbye"\): the text does not contain "goodbye"; it was "Hello there\."/,
  "outputMatches fails on no match": /outputMatches\(\/\^\\d\+\$\/\): "Hello there\." does not match/,
  "maxSteps fails over budget": /maxSteps\(1\): over budget: steps 2 of 1/,
  "maxTokens fails over budget": /maxTokens\(1000\): over budget: tokens 1100 of 1000/,
  "maxCost fails over budget": /maxCost\(0\.01\): over budget: cost \$0\.200000 of \$0\.010000/,
  "check fails on a wrong value": /check\("2 \+ 2 = 4\.", numeric\(5\)\): 4 is 1 away from 5/,
  "judge fails when the judge says so": /judge\("llm-judge"\): judge: it only says hello/,
  "a script that runs out fails the case": /the mock script ran out: script exhausted: model call #2 has no scripted response/,
  "fetch under --mock fails the case": /network request under --mock: GET https:\/\/api\.example\.com\/compute/,
  "a raw socket under --mock fails the case": /network request under --mock: db\.internal:5432/,
  "a body that throws fails the case": /the test body threw: the test itself is broken \(at failures\.eval\.ts:58:11\)/,
  "a slow case times out": /timed out after 50 ms/,
  "a case without assertions fails": /the case recorded no assertions/,
  "a score below the threshold fails": /score 0\.50 is below the threshold 0\.75/,
  "an unknown scorer fails": /no scorer named "exactt" \(did you mean "exact"\?\)/,
  "a case whose every assertion was skipped fails": /every assertion was skipped; nothing was checked/,
  "a t.send the body did not await fails the case": /t\.send was not awaited: the body returned while a turn was still running/,
  "a tool mock that runs out fails the case": /the tool mock ran out: mock for calculator has no result for call #2 \(it holds 1\)/,
  "a soft judge whose script runs out fails the case": /the mock script of the judge run eval_[0-9a-f]{12}\.judge1 ran out: script exhausted/,
  "a child process under --mock fails the case": /network request under --mock: a child process \(execFileSync curl https:\/\/api\.example\.com\/compute\)/,
  "a rejection left unhandled fails the case": /the case's code left an error unhandled: unhandled rejection: nobody handles this \(at fixtures\/evals\/failing\/failures\.eval\.ts:\d+:\d+\)/,
  "a script with responses left unused fails the case":
    /the mock script left 1 response\(s\) unused: #2 text "A second answer nobody asked for\."; the agent stopped before the script expected \(if they are spare on purpose: allow_unused: true in the script, or allowUnused: true on the case\)/,
  "a judge whose script has spare responses fails the case": /the mock script of the judge run eval_[0-9a-f]{12}\.judge1 left 1 response\(s\) unused: #2 text "PASS again"/,
  'outputContains("") is refused': /the test body threw: case "outputContains\(""\) is refused": t\.outputContains\(""\): includes\(""\) checks nothing: every text contains the empty string/,
  "outputContains([]) is refused": /t\.outputContains\(\[\]\): includes\(\[\]\) checks nothing/,
  "match.includes(undefined) is refused": /case "match\.includes\(undefined\) is refused": t\.check\(…, includes\): includes needs the text \(or item\) to look for, got undefined/,
  'match.includes("") is refused': /t\.check\(…, includes\(""\)\): includes\(""\) checks nothing/,
  "match.similar with threshold is refused": /t\.check\(…, similarity\("Hello"\)\): unknown option "threshold"; it accepts method, min, caseSensitive/,
  "calledTool with time is refused": /t\.calledTool\("calculator"\): unknown option "time" \(did you mean "times"\?\)/,
  "calledToolWith with strcit is refused": /unknown option "strcit" \(did you mean "strict"\?\)/,
  "match.numeric with tolerence is refused": /unknown option "tolerence" \(did you mean "tolerance"\?\)/,
  'severity "gat" is refused': /t\.outputContains\("Hello"\): option severity: expected "gate" or "soft", got "gat" \(did you mean "gate"\?\)/,
  "maxCost with no price is skipped, never passed because maxSteps held": /every assertion was skipped; nothing was checked/,
  "a missing config file": /no-such-agent\.yaml: config file not found/,
  "a mock for a tool the agent lacks": /tools\.search_docs mocks a tool the agent does not have \(its tools: calculator\)/,
  "no mock script under --mock": /has no mock script: under --mock give it "mock"/,
};

const setupErrors = new Set(["a missing config file", "a mock for a tool the agent lacks", "no mock script under --mock"]);

describe("the failing fixtures", () => {
  let run: CliRun;
  let report: EvalReport;
  beforeAll(async () => {
    const out = join(tempDir(), "report.json");
    run = await retrace(["eval-test", "fixtures/evals/failing", "--mock", "--reporter", `json=${out}`]);
    report = readJsonReport(out);
  });

  it("exits 2, because a file could not be loaded and some cases could not be set up", () => {
    expect(run.code).toBe(2);
    expect(report.summary.exitCode).toBe(2);
    expect(report.summary).toMatchObject({ passed: 0, errors: setupErrors.size, failed: Object.keys(expected).length - setupErrors.size, fileErrors: 1 });
  });

  it("reports the file that throws on import, and still runs the others", () => {
    const broken = report.files.find((file) => file.file.endsWith("broken.eval.ts"));
    expect(broken?.error?.message).toMatch(/broken\.eval\.ts: cannot load: RETRACE_FIXTURE_CONFIG is not set/);
    expect(report.cases.length).toBe(Object.keys(expected).length);
  });

  it.each(Object.entries(expected))("%s", (name, message) => {
    const result = report.cases.find((item) => item.name === name);
    expect(result, `case "${name}" is in the report`).toBeDefined();
    expect(result?.status).toBe(setupErrors.has(name) ? "error" : "failed");
    const attempt = result?.attempts[0];
    const reasons = [
      ...(attempt?.assertions.filter((assertion) => assertion.status === "failed").map((assertion) => `${assertion.label}: ${assertion.reason}`) ?? []),
      ...(attempt?.errors ?? []),
    ];
    expect(reasons.join("\n")).toMatch(message);
    // The console says the same thing as the JSON report.
    expect(run.stdout).toContain(name);
  });

  it("an equality failure's details carry the differing paths and both values, for the JSON report", () => {
    const assertion = report.cases.find((item) => item.name === "check on large data shows where it differs")?.attempts[0]?.assertions[0];
    expect((assertion?.details as { differences: unknown }).differences).toEqual([{ path: "key42.value", expected: 42, actual: 41 }]);
    expect(run.stdout).toContain("at key42.value: expected 42, got 41");
  });

  it("covers every assertion of t", () => {
    const used = new Set(report.cases.flatMap((result) => result.attempts.flatMap((attempt) => attempt.assertions.map((assertion) => assertion.assertion))));
    for (const assertion of [
      "calledTool",
      "calledToolWith",
      "notCalledTool",
      "toolWasBlocked",
      "toolSequence",
      "usedNoTools",
      "completed",
      "failed",
      "retrievedChunk",
      "blocked",
      "warned",
      "outputContains",
      "outputMatches",
      "maxSteps",
      "maxTokens",
      "maxCost",
      "check",
      "judge",
    ]) {
      expect(used, assertion).toContain(assertion);
    }
  });
});
