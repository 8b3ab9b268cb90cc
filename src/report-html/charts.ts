import { escapeHtml } from "./escape.js";

export interface BarChartOptions {
  /** Also the chart's accessible name. */
  title: string;
  labels: readonly string[];
  /** null: no value (a skipped case, a call with unknown usage); drawn as a gap. */
  values: readonly (number | null)[];
  /** Top of the scale; default the largest value. */
  max?: number;
  format: (value: number) => string;
  /** Bars drawn in the "bad" colour (a failed case). */
  flagged?: readonly boolean[];
}

const WIDTH = 720;
const HEIGHT = 110;
const TOP = 6;
const BOTTOM = 18;
/** Above this many bars, one path per colour instead of one element per bar: a 2,000-step run stays one light node. */
const PER_BAR_LIMIT = 150;

const number = (value: number): string => (Math.round(value * 100) / 100).toString();

/**
 * A static bar chart as inline SVG: no script, no font, prints as it shows. With few bars
 * each one carries its label and value as a tooltip; the figure's caption states the range in
 * words for readers who cannot see it.
 */
export function barChart(options: BarChartOptions): string {
  const count = options.values.length;
  if (count === 0) return "";
  const present = options.values.filter((value): value is number => value !== null);
  const max = options.max ?? Math.max(0, ...present);
  const plot = HEIGHT - TOP - BOTTOM;
  // Few bars stay narrow: a five-step run should not look like five walls.
  const step = Math.min(WIDTH / count, 28);
  const gap = step > 4 ? Math.min(2, step * 0.2) : 0;
  const bar = (index: number, value: number) => {
    const height = max > 0 ? Math.max(value > 0 ? 1 : 0, (value / max) * plot) : 0;
    return { x: index * step, y: TOP + plot - height, width: Math.max(step - gap, 0.5), height };
  };
  let marks = "";
  if (count <= PER_BAR_LIMIT) {
    options.values.forEach((value, index) => {
      if (value === null) return;
      const { x, y, width, height } = bar(index, value);
      const label = `${options.labels[index] ?? ""}: ${options.format(value)}`;
      marks += `<rect x="${number(x)}" y="${number(y)}" width="${number(width)}" height="${number(height)}" class="${options.flagged?.[index] ? "bad" : "good"}"><title>${escapeHtml(label)}</title></rect>`;
    });
  } else {
    const paths = { good: "", bad: "" };
    options.values.forEach((value, index) => {
      if (value === null) return;
      const { x, y, width, height } = bar(index, value);
      paths[options.flagged?.[index] ? "bad" : "good"] += `M${number(x)} ${number(y)}h${number(width)}v${number(height)}h${number(-width)}z`;
    });
    for (const [kind, d] of Object.entries(paths)) if (d) marks += `<path class="${kind}" d="${d}"/>`;
  }
  const low = present.length ? Math.min(...present) : 0;
  const high = present.length ? Math.max(...present) : 0;
  const summary = `${count} bar(s); from ${options.format(low)} to ${options.format(high)}`;
  return `<figure class="chart"><svg viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="${escapeHtml(`${options.title}: ${summary}`)}">
<style>.good{fill:#0550ae}.bad{fill:#a40e26}.axis{stroke:#8c959f}.tick{font:11px system-ui,sans-serif;fill:#57606a}</style>
<line class="axis" x1="0" y1="${TOP + plot}" x2="${WIDTH}" y2="${TOP + plot}"/>${marks}
<text class="tick" x="2" y="${HEIGHT - 4}">max ${escapeHtml(options.format(max))}</text>
</svg><figcaption class="muted">${escapeHtml(options.title)} — ${escapeHtml(summary)}</figcaption></figure>`;
}
