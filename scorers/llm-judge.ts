/**
 * `llm-judge`: a model grades the output against a rubric. The judge is asked through
 * `input.judge`, which runs it as a run of its own (recorded in the case's store, linked to the
 * case's run), so under --mock its answer comes from a script, and a recorded judgement replays
 * identically. The judge must answer `{"score": 0..1, "pass": bool, "reason": "..."}` (or
 * start with PASS / FAIL); anything else fails loudly rather than guessing.
 */
import type { LanguageModel, ScriptInput } from "../src/contracts/index.js";
import { z } from "zod";
import { defineScorer, failed, scored } from "../src/scoring/index.js";
import { type ScoreResult } from "../src/contracts/index.js";
import { registerBuiltin } from "./registry.js";
import { asText, clip, describeCalls } from "./support.js";

export interface LlmJudgeOptions {
  rubric: string;
  /** Least score that passes when the judge gives no explicit verdict. Default 0.5. */
  passAt?: number;
  /** Show the judge the run's tool calls too. Default false. */
  includeToolCalls?: boolean;
  model?: LanguageModel;
  mock?: string | ScriptInput;
  llm?: Record<string, unknown>;
  /** Names the judge's run in the report. */
  label?: string;
}

export const JUDGE_SYSTEM_PROMPT =
  "You are an impartial evaluator. Grade the response strictly against the rubric. " +
  'Answer with only a JSON object: {"score": <number from 0 to 1>, "pass": <true or false>, "reason": "<one sentence>"}.';

export function parseJudgement(text: string, passAt: number): ScoreResult {
  const json = /\{[\s\S]*\}/.exec(text)?.[0];
  // Stryker disable next-line ConditionalExpression: equivalent, JSON.parse(undefined) throws, and the catch below goes on to the verdict words as the missing JSON does
  if (json) {
    try {
      const parsed = JSON.parse(json) as { score?: unknown; pass?: unknown; reason?: unknown };
      if (typeof parsed.score === "number" && parsed.score >= 0 && parsed.score <= 1) {
        const pass = typeof parsed.pass === "boolean" ? parsed.pass : parsed.score >= passAt;
        const reason = typeof parsed.reason === "string" ? parsed.reason : "(no reason given)";
        return scored(parsed.score, pass, `judge: ${reason}`, { score: parsed.score });
      }
    } catch {
      // Fall through to the verdict words, then to a loud failure.
    }
  }
  const verdict = /^\s*(PASS|FAIL)\b[:\s-]*([\s\S]*)$/i.exec(text);
  if (verdict) {
    const pass = (verdict[1] as string).toUpperCase() === "PASS";
    return scored(pass ? 1 : 0, pass, `judge: ${clip(verdict[2] || (pass ? "pass" : "fail"), 200)}`);
  }
  return failed(`the judge's answer is not {"score", "pass", "reason"} JSON or PASS/FAIL: ${JSON.stringify(clip(text, 160))}`);
}

export const llmJudgeScorer = registerBuiltin(
  defineScorer<LlmJudgeOptions>({
    name: "llm-judge",
    options: {
      rubric: z.string(),
      passAt: z.number().min(0).max(1),
      includeToolCalls: z.boolean(),
      model: z.custom<LanguageModel>((value) => value !== null && typeof value === "object"),
      mock: z.union([z.string(), z.custom<ScriptInput>((value) => value !== null && typeof value === "object")]),
      llm: z.record(z.string(), z.unknown()),
      label: z.string(),
    },
    description: "A model grades the output against a rubric; its calls are recorded as a run, so a replayed judgement is identical.",
    async score({ run, value, expected, options, judge }) {
      if (typeof options.rubric !== "string" || options.rubric.trim() === "") throw new TypeError("llm-judge needs a rubric");
      if (!judge) return failed("llm-judge needs a judge service: use it through t.judge(...) in an eval case");
      const sections = [
        `Rubric:\n${options.rubric.trim()}`,
        `User input:\n${run.turns.map((turn) => turn.input).join("\n---\n") || "(none)"}`,
        `Response:\n${asText(value)}`,
      ];
      if (expected !== undefined) sections.push(`Reference answer:\n${asText(expected)}`);
      if (options.includeToolCalls) sections.push(`Tool calls:\n${describeCalls(run.toolCalls, 50)}`);
      const answer = await judge.ask({
        label: options.label ?? "llm-judge",
        system: JUDGE_SYSTEM_PROMPT,
        prompt: sections.join("\n\n"),
        ...(options.model ? { model: options.model } : {}),
        ...(options.mock !== undefined ? { mock: options.mock } : {}),
        ...(options.llm ? { llm: options.llm } : {}),
      });
      if (answer.status !== "completed") {
        return failed(`the judge run ${answer.runId} failed: ${answer.error ? `${answer.error.code}: ${answer.error.message}` : "unknown error"}`, {
          judgeRunId: answer.runId,
        });
      }
      const result = parseJudgement(answer.text, options.passAt ?? 0.5);
      // Stryker disable next-line ConditionalExpression,LogicalOperator: equivalent, spreading undefined adds nothing, so the guard only documents intent
      return { ...result, details: { ...(typeof result.details === "object" && result.details ? result.details : {}), judgeRunId: answer.runId } };
    },
  }),
);
