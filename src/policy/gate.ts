import type { CallGate, CallVerdict, PreparedCall } from "../agent/gate.js";
import { canonicalJson, digest } from "../canonical/index.js";
import type { PendingApproval } from "../journal/index.js";
import type { RunLog } from "../store/index.js";
import type { Approver } from "./approver.js";
import type { Guardrails } from "./guardrails.js";
import type { PathArguments } from "./match.js";
import { RateLimiter, type RateLimitSettings } from "./rate-limit.js";
import { describeRule, firstMatch, trusted, type PolicyRule, type TrustRule } from "./rules.js";

export type Mode = "chat" | "plan" | "act" | "auto" | "yolo";

export interface GovernanceSettings {
  mode: Mode;
  policy: readonly PolicyRule[];
  trust: readonly TrustRule[];
  rateLimits: RateLimitSettings;
  guardrails?: Guardrails;
  /** Decides while the run waits (e.g. a terminal prompt). Without one, undecided calls pause the run. */
  approver?: Approver;
}

/** The tool's declared path arguments: rules match them in its folder's relative form. */
const pathArguments = (tool: PreparedCall["tool"]): PathArguments => ({
  ...(tool.pathArgs ? { pathArgs: tool.pathArgs } : {}),
  ...(tool.pathRoot !== undefined ? { pathRoot: tool.pathRoot } : {}),
});

/** Role name recorded when a call needs any one approval rather than named roles. */
export const ANY_APPROVER = "approver";

/** The roles a tool's requiresApproval names; [] means any one approver. */
function toolRoles(requires: boolean | string | string[]): string[] | undefined {
  if (requires === false) return undefined;
  if (requires === true) return [];
  return typeof requires === "string" ? [requires] : [...requires];
}

/** Roles still to approve; [ANY_APPROVER] when any one approval would do and none came yet. */
export function missingRoles(approval: PendingApproval): string[] {
  if (approval.roles.length === 0) return approval.granted.length > 0 ? [] : [ANY_APPROVER];
  return approval.roles.filter((role) => !approval.granted.includes(role));
}

/**
 * One pipeline for every call, in a fixed order: rate limit → policy rules → guardrails on the
 * arguments → mode → approval. The first stage that stops a call decides its block reason.
 */
export class PolicyGate implements CallGate {
  readonly settings: GovernanceSettings;

  constructor(settings: GovernanceSettings) {
    this.settings = settings;
  }

  async review(calls: readonly PreparedCall[], log: RunLog): Promise<CallVerdict[]> {
    // The review's time is in the log: the batch's request, or the resume that continues it.
    // Neither changes while the gate writes its own events, so a review cut short by a crash
    // and done again decides with the same time, and a replay decides as the recording did.
    const now = log.latestTime(["tool.requested", "run.resumed"]) ?? log.latestTime() ?? 0;
    const limiter = new RateLimiter(this.settings.rateLimits, log.events, now);
    const verdicts: CallVerdict[] = [];
    for (const call of calls) {
      const verdict = await this.#reviewCall(call, log, limiter, now);
      if (verdict.action === "run") limiter.count(call.name);
      verdicts.push(verdict);
    }
    return verdicts;
  }

  async #reviewCall(call: PreparedCall, log: RunLog, limiter: RateLimiter, now: number): Promise<CallVerdict> {
    const { mode, policy, trust, guardrails } = this.settings;
    if (mode !== "yolo") {
      const limited = limiter.check(call.name);
      if (limited) return { action: "block", reason: "rate_limited", detail: limited };
    }

    const match = firstMatch(policy, { ...pathArguments(call.tool), name: call.name, risk: call.tool.risk }, call.args);
    if (match?.rule.action === "deny") return { action: "block", reason: "policy_denied", detail: describeRule(match) };
    const roles = new Set<string>();
    let needsApproval = false;
    if (match?.rule.action === "require_approval") {
      needsApproval = true;
      for (const role of match.rule.roles ?? []) roles.add(role);
    }

    const firing = guardrails?.checkArguments(canonicalJson(call.args));
    if (firing) {
      // Written with the block, once the batch is decided: a batch that waits is reviewed again.
      return { action: "block", reason: "guardrail", detail: `${firing.rule}: ${firing.detail}`, events: [{ ...firing, callId: call.callId }] };
    }

    if ((mode === "chat" || mode === "plan") && !call.tool.readOnly) {
      return { action: "block", reason: "mode_blocked", detail: `mode ${mode} allows read-only tools only, and ${call.name} is not read-only` };
    }
    // yolo skips the tools' own approvals, never those the policy rules require.
    const required = mode === "yolo" || (mode === "auto" && trusted(trust, { ...pathArguments(call.tool), name: call.name }, call.args)) ? undefined : toolRoles(call.tool.requiresApproval);
    if (required) {
      needsApproval = true;
      for (const role of required) roles.add(role);
    }
    if (!needsApproval) return { action: "run" };
    return this.#approval(call, [...roles].sort(), log, now);
  }

  async #approval(call: PreparedCall, roles: string[], log: RunLog, now: number): Promise<CallVerdict> {
    const argsHash = digest(call.args);
    const find = () => log.state.pendingApprovals.find((approval) => approval.callId === call.callId && approval.argsHash === argsHash);
    if (!find()) {
      const timeout = call.tool.approvalTimeoutMs;
      log.append<"approval.requested">({
        type: "approval.requested",
        callId: call.callId,
        tool: call.name,
        argsHash,
        roles,
        ...(timeout !== undefined ? { deadline: now + timeout } : {}),
      });
    }
    for (let asked = false; ; asked = true) {
      const approval = find() as PendingApproval;
      if (approval.denied) {
        return { action: "block", reason: "approval_denied", detail: `denied by ${approval.denied.role}: ${approval.denied.reason}` };
      }
      const expired = approval.expired || (approval.deadline !== undefined && now > approval.deadline);
      const missing = missingRoles(approval);
      if (missing.length === 0 && !expired) return { action: "run" };
      if (expired) {
        const detail = `no decision before the deadline (${new Date(approval.deadline ?? now).toISOString()})`;
        if (!approval.expired) log.append<"approval.expired">({ type: "approval.expired", callId: call.callId, detail });
        return { action: "block", reason: "approval_expired", detail };
      }
      if (asked || !this.settings.approver) return { action: "wait", roles: approval.roles };
      const decisions = await this.settings.approver.decide({ runId: log.runId, callId: call.callId, tool: call.name, args: call.args, missingRoles: missing });
      if (decisions.length === 0) return { action: "wait", roles: approval.roles };
      log.appendAll(
        decisions.map((decision) =>
          decision.approved
            ? { type: "approval.granted" as const, callId: call.callId, argsHash, role: decision.role, ...(decision.by ? { by: decision.by } : {}) }
            : {
                type: "approval.denied" as const,
                callId: call.callId,
                argsHash,
                role: decision.role,
                reason: decision.reason ?? "denied",
                ...(decision.by ? { by: decision.by } : {}),
              },
        ),
      );
    }
  }
}
