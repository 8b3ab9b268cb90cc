/**
 * The `t` assertions of the built-in scorers, gathered from each scorer's own file: the eval
 * DSL builds `t.calledTool`, `t.outputContains`, ... from this table (and types them from it),
 * and scores each through the registry by the scorer name its sugar gives. A new scorer with
 * sugar adds one line here; the DSL does not change.
 */
import { budgetsAssertions } from "./budgets.js";
import { guardrailAssertions } from "./guardrail.js";
import { includesAssertions } from "./includes.js";
import { noToolsAssertions } from "./no-tools.js";
import { regexAssertions } from "./regex.js";
import { retrievedChunkAssertions } from "./retrieved-chunk.js";
import { runStatusAssertions } from "./run-status.js";
import { toolBlockedAssertions } from "./tool-blocked.js";
import { toolCalledAssertions } from "./tool-called.js";
import { toolNotCalledAssertions } from "./tool-not-called.js";
import { toolTrajectoryAssertions } from "./tool-trajectory.js";
import { rankingAssertions } from "./ranking.js";
import { citationsAssertions } from "./citations.js";
import { abstainsAssertions } from "./abstains.js";

export const builtinAssertions = Object.freeze({
  ...toolCalledAssertions,
  ...toolNotCalledAssertions,
  ...toolBlockedAssertions,
  ...toolTrajectoryAssertions,
  ...noToolsAssertions,
  ...runStatusAssertions,
  ...retrievedChunkAssertions,
  ...rankingAssertions,
  ...citationsAssertions,
  ...abstainsAssertions,
  ...guardrailAssertions,
  ...includesAssertions,
  ...regexAssertions,
  ...budgetsAssertions,
});

export type BuiltinAssertions = typeof builtinAssertions;
