export { PolicyGate, ANY_APPROVER, missingRoles, type GovernanceSettings, type Mode } from "./gate.js";
export { Guardrails, type GuardrailSettings, type GuardrailEvent } from "./guardrails.js";
export { RateLimiter, type RateLimitSettings, type LimitSettings } from "./rate-limit.js";
export type { Approver, ApprovalDecision, ApprovalQuestion } from "./approver.js";
// promptApprover is imported from ./prompt-approver.js, not from here: its streams are Node's
// types, and this barrel is reachable from the published declarations, which must compile in a
// project without @types/node (test/package/fresh-project.test.ts).
export { firstMatch, trusted, type PolicyRule, type TrustRule, type ArgumentPatterns } from "./rules.js";
export { unsafeRegexReason } from "../patterns/index.js";
export { globMatches } from "./match.js";
