/**
 * The browser the page tests drive: the system's Chromium (Debian's `chromium` package, which
 * .ci/run installs), or the one RETRACE_CHROMIUM names. Missing, the tests fail and say how to
 * get it; they never skip, so a green run means the pages were checked in a real browser.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { chromium, type Browser, type Page } from "playwright-core";

export const CHROMIUM_PATH = process.env.RETRACE_CHROMIUM ?? "/usr/bin/chromium";

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM_PATH}. The HTML page tests need a real browser: install Debian's chromium (sudo apt-get install -y chromium; .ci/run does it) or set RETRACE_CHROMIUM to a Chromium or Chrome binary.`,
    );
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ["--disable-gpu", "--disable-dev-shm-usage"] });
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** axe-core's violations of the page as it is now (the page's own policy refuses the script, so the context must bypass CSP). */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.addScriptTag({ content: axeSource });
  return page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(options: object): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run({ resultTypes: ["violations"] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  });
}

export const serious = (violations: readonly AxeViolation[]) => violations.filter((v) => v.impact === "serious" || v.impact === "critical");
