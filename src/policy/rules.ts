import { argsMatch, globMatches, type PathArguments } from "./match.js";

export type ArgumentPatterns = Readonly<Record<string, string | number | boolean | null>>;

export interface PolicyRule {
  /** Tool name glob. */
  tool: string;
  /** Matches only tools of this risk. */
  risk?: "safe" | "moderate" | "destructive";
  args?: ArgumentPatterns;
  action: "allow" | "deny" | "require_approval";
  roles?: readonly string[];
  reason?: string;
}

export interface TrustRule {
  tool: string;
  args?: ArgumentPatterns;
}

export interface RuleMatch {
  rule: PolicyRule;
  index: number;
}

/** The first rule that matches the call, if any: first match wins. */
export function firstMatch(rules: readonly PolicyRule[], tool: { name: string; risk: string } & PathArguments, args: unknown): RuleMatch | undefined {
  for (const [index, rule] of rules.entries()) {
    if (!globMatches(rule.tool, tool.name) || (rule.risk !== undefined && rule.risk !== tool.risk)) continue;
    if (argsMatch(rule.args, args, rule.action === "allow" ? "permit" : "restrict", tool)) return { rule, index };
  }
  return undefined;
}

export function trusted(rules: readonly TrustRule[], tool: { name: string } & PathArguments, args: unknown): boolean {
  return rules.some((rule) => globMatches(rule.tool, tool.name) && argsMatch(rule.args, args, "permit", tool));
}

export function describeRule(match: RuleMatch): string {
  const { rule, index } = match;
  const args = rule.args ? ` where ${Object.entries(rule.args).map(([key, value]) => `${key} matches ${JSON.stringify(value)}`).join(" and ")}` : "";
  const risk = rule.risk ? ` (${rule.risk} tools)` : "";
  return `policy[${index}] ${rule.action === "deny" ? "denies" : rule.action === "allow" ? "allows" : "requires approval for"} ${rule.tool}${risk}${args}${rule.reason ? `: ${rule.reason}` : ""}`;
}
