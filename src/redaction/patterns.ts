/**
 * Text that looks like a credential. Kept specific (known key prefixes, bearer tokens, PEM
 * blocks) so that redaction does not shred ordinary answers.
 */
export const SECRET_PATTERNS: readonly { name: string; pattern: RegExp }[] = [
  { name: "openai_key", pattern: /\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}/g },
  { name: "aws_access_key", pattern: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g },
  { name: "github_token", pattern: /\b(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{20,}/g },
  { name: "slack_token", pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g },
  { name: "bearer_token", pattern: /\bBearer\s+[A-Za-z0-9._~+/-]{16,}=*/g },
  // The body admits base64, PEM header lines and single dashes, never "-----": a text of many
  // BEGIN lines without an END then costs one scan, not one scan per BEGIN.
  {
    name: "private_key",
    pattern: /-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----(?:[A-Za-z0-9+/=\s:,.]|-(?=[A-Za-z0-9]))*-----END [A-Z ]{0,40}PRIVATE KEY-----/g,
  },
];

/**
 * Text every SECRET_PATTERNS match holds (each pattern's literal part): a string without any of
 * it holds no credential-looking text, so the redaction of an ordinary string is one scan, not
 * one per pattern. A test checks that every pattern's matches pass it.
 */
export const MAY_LOOK_SECRET = /sk-|AKIA|ASIA|gh[opusr]_|github_pat_|xox[abprs]-|Bearer\s|-----BEGIN /;
/** The literal starts MAY_LOOK_SECRET looks for: a stream that ends in the beginning of one may be about to spell one. */
export const SECRET_STARTS: readonly string[] = ["sk-", "AKIA", "ASIA", ..."opusr".split("").map((c) => `gh${c}_`), "github_pat_", ..."abprs".split("").map((c) => `xox${c}-`), "Bearer ", "-----BEGIN "];

export const REDACTION = "[redacted]";
