import { embedJson, escapeHtml } from "./escape.js";
import { BASE_STYLES } from "./styles.js";

export interface PageParts {
  title: string;
  /** Markup built from escaped text only. */
  body: string;
  /** What the page's script reads; embedded as JSON. */
  data: unknown;
  /** The page's own script (a constant of this module, never data). */
  script: string;
  styles?: string;
}

/**
 * One self-contained file: styles, script and data inline. The content security policy
 * refuses every fetch (no CDN, no image, no beacon), so a page opened from a ticket or a CI
 * artefact makes no request at all.
 */
const POLICY = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'";

export function htmlPage(parts: PageParts): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${POLICY}">
<meta name="generator" content="retrace">
<title>${escapeHtml(parts.title)}</title>
<style>${BASE_STYLES}${parts.styles ?? ""}</style>
</head>
<body>
${parts.body}
<script type="application/json" id="retrace-data">${embedJson(parts.data)}</script>
<script>${parts.script}</script>
</body>
</html>
`;
}
