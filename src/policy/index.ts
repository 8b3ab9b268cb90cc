export { PolicyGate, ANY_APPROVER, missingRoles, type GovernanceSettings, type Mode } from "./gate.js";
export { Guardrails, type GuardrailSettings, type GuardrailEvent } from "./guardrails.js";
export { RateLimiter, type RateLimitSettings, type LimitSettings } from "./rate-limit.js";
export type { Approver, ApprovalDecision, ApprovalQuestion } from "./approver.js";
export { promptApprover } from "./prompt-approver.js";
export { firstMatch, trusted, type PolicyRule, type TrustRule, type ArgumentPatterns } from "./rules.js";
export { unsafeRegexReason } from "./regex-safety.js";
export { globMatches } from "./match.js";
