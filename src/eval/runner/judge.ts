/**
 * The judge service a case's scorers ask (llm-judge): each question is a run of its own,
 * linked to the case's run as its parent, so it is recorded and replayable and stays out of
 * the case's own log.
 */
import { AgentRun, judgeLink, type AgentDefinition, type Cancellation } from "../../agent/index.js";
import type { RunContext } from "../../context/index.js";
import { errorMessage, EvalDefinitionError } from "../../errors/index.js";
import type { JudgeAnswer, JudgeRequest, JudgeService, LanguageModel, RunStore } from "../../contracts/index.js";
import type { EvalCase } from "../dsl/index.js";
import type { SuiteSetup } from "./setup.js";

export function judgeService(
  run: AgentRun,
  agent: AgentDefinition,
  spec: EvalCase,
  setup: SuiteSetup,
  store: RunStore,
  context: RunContext,
  cancellation: Cancellation,
  judgeRuns: string[],
  fail: (message: string) => void,
  /** Each judge's model, by its run: the runner checks the scripts it made for unused responses. */
  models: { runId: string; model: LanguageModel }[] = [],
): JudgeService {
  let count = 0;
  return {
    async ask(request: JudgeRequest): Promise<JudgeAnswer> {
      let model: LanguageModel;
      try {
        model = await setup.judgeModel(request, spec, agent.model);
      } catch (error) {
        // A judge that cannot be set up (no script under --mock, an invalid one) is a broken
        // case, not a low score: even a soft judge's case fails.
        if (error instanceof EvalDefinitionError) fail(`the judge could not be set up: ${errorMessage(error)}`);
        throw error;
      }
      count++;
      // The judge is a run of its own, linked to the case's run: recorded, replayable, and out
      // of the case's log (whose fold would otherwise count the judge's steps as the agent's).
      const link = judgeLink(run.runId, count);
      const judgeRun = AgentRun.start(
        {
          name: `judge:${request.label}`,
          system: request.system,
          maxSteps: 1,
          model,
          tools: [],
          ...(agent.maxRetries !== undefined ? { maxRetries: agent.maxRetries } : {}),
          ...(agent.cost ? { cost: agent.cost } : {}),
        },
        { store, context, runId: link.runId, parent: { runId: run.runId, callId: link.callId } },
      );
      judgeRuns.push(judgeRun.runId);
      // A model the eval file built is its own to account for; a script the runner loaded is checked.
      if (!request.model) models.push({ runId: judgeRun.runId, model });
      const outcome = await judgeRun.send(request.prompt, { cancellation });
      return {
        runId: judgeRun.runId,
        status: outcome.status === "completed" ? "completed" : "failed",
        text: outcome.output,
        error: outcome.error,
      };
    },
  };
}

