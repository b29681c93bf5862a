import { escapeHtml } from "./escape.ts";
import type { ReportTier, TrendPoint } from "./report-data.ts";

const WIDTH = 760;
const HEIGHT = 260;
const PAD = { left: 44, right: 96, top: 16, bottom: 30 };

const x = (index: number, count: number): number =>
  count <= 1
    ? PAD.left + (WIDTH - PAD.left - PAD.right) / 2
    : PAD.left + (index * (WIDTH - PAD.left - PAD.right)) / (count - 1);
const y = (value: number): number => PAD.top + (1 - value) * (HEIGHT - PAD.top - PAD.bottom);
const fixed = (value: number): string => value.toFixed(1);

interface Series {
  readonly cssClass: "bound" | "mean" | "pass";
  readonly label: string;
  readonly value: (point: TrendPoint) => number;
}

/**
 * The series, told apart by more than colour: the bound a solid line with round markers, the mean dashed
 * with small round markers, the pass rate dotted with square markers.
 */
const SERIES: readonly Series[] = [
  { cssClass: "bound", label: "lower bound (95%)", value: (point) => point.lower_bound_95 },
  { cssClass: "mean", label: "mean score", value: (point) => point.mean_score },
  { cssClass: "pass", label: "pass rate", value: (point) => point.pass_rate },
];

/** A point's marker; `key` marks the legend's sample (styled alike, counted apart from the data). */
function marker(cssClass: Series["cssClass"], cx: number, cy: number, title: string, key = false): string {
  const tip = `<title>${escapeHtml(title)}</title>`;
  const className = key ? `key-${cssClass}` : cssClass;
  if (cssClass === "pass")
    return `<rect class="${className}" x="${fixed(cx - 3.5)}" y="${fixed(cy - 3.5)}" width="7" height="7">${tip}</rect>`;
  return `<circle class="${className}" cx="${fixed(cx)}" cy="${fixed(cy)}" r="${cssClass === "bound" ? 3.5 : 2.5}">${tip}</circle>`;
}

function seriesSvg(points: readonly TrendPoint[], series: Series): string {
  const at = points.map((point, index) => [x(index, points.length), y(series.value(point))] as const);
  const line =
    points.length > 1
      ? `<polyline class="${series.cssClass}" fill="none" points="${at.map(([px, py]) => `${fixed(px)},${fixed(py)}`).join(" ")}"/>`
      : "";
  return (
    line +
    points
      .map((point, index) =>
        marker(
          series.cssClass,
          at[index]![0],
          at[index]![1],
          `${point.run_id} (${point.ended_at}): ${series.label} ${series.value(point).toFixed(3)}`,
        ),
      )
      .join("")
  );
}

/** The x axis's end labels: dates, with the time when both ends fall on the same day. */
function axisLabels(points: readonly TrendPoint[]): [string, string] {
  const first = points[0]!.ended_at;
  const last = points.at(-1)!.ended_at;
  const sameDay = first.slice(0, 10) === last.slice(0, 10);
  const label = (stamp: string): string =>
    sameDay ? `${stamp.slice(0, 10)} ${stamp.slice(11, 16)}Z` : stamp.slice(0, 10);
  return [label(first), label(last)];
}

function legend(): string {
  return SERIES.map((series, index) => {
    const left = PAD.left + 6 + index * 150;
    const sample = `<line class="key-${series.cssClass}" x1="${left}" x2="${left + 22}" y1="${PAD.top + 8}" y2="${PAD.top + 8}"/>${marker(series.cssClass, left + 11, PAD.top + 8, series.label, true)}`;
    return `${sample}<text class="legend ${series.cssClass}" x="${left + 28}" y="${PAD.top + 12}">${series.label}</text>`;
  }).join("");
}

/**
 * The trend chart as inline SVG: lower bound, mean score and pass rate of each full run (oldest left) against the tier
 * thresholds. Our own few lines rather than a chart library: the report has no network and a strict CSP,
 * so any library would be inlined whole and hashed, for two polylines and some dashed rules.
 */
export function trendChartSvg(
  points: readonly TrendPoint[],
  tiers: readonly ReportTier[],
  currentRunId: string,
): string {
  const parts: string[] = [];
  for (const tick of [0, 0.25, 0.5, 0.75, 1]) {
    parts.push(
      `<line class="grid" x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${fixed(y(tick))}" y2="${fixed(y(tick))}"/>`,
    );
    parts.push(
      `<text class="axis" x="${PAD.left - 6}" y="${fixed(y(tick) + 4)}" text-anchor="end">${tick.toFixed(2)}</text>`,
    );
  }
  for (const tier of tiers) {
    parts.push(
      `<line class="tier" x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${fixed(y(tier.threshold))}" y2="${fixed(y(tier.threshold))}"/>`,
    );
    parts.push(
      `<text class="tier-label" x="${WIDTH - PAD.right + 6}" y="${fixed(y(tier.threshold) + 4)}">${escapeHtml(`${tier.name} ${tier.threshold}`)}</text>`,
    );
  }
  if (points.length === 0) {
    parts.push(
      `<text class="axis" x="${WIDTH / 2}" y="${HEIGHT / 2}" text-anchor="middle">no complete full run of this task class in the chain</text>`,
    );
  } else {
    for (const series of SERIES) parts.push(seriesSvg(points, series));
    const current = points.findIndex((point) => point.run_id === currentRunId);
    if (current !== -1)
      parts.push(
        `<line class="current" x1="${fixed(x(current, points.length))}" x2="${fixed(x(current, points.length))}" y1="${PAD.top}" y2="${HEIGHT - PAD.bottom}"/>`,
      );
    const [first, last] = axisLabels(points);
    parts.push(`<text class="axis" x="${PAD.left}" y="${HEIGHT - 8}">${escapeHtml(first)}</text>`);
    if (points.length > 1)
      parts.push(
        `<text class="axis" x="${WIDTH - PAD.right}" y="${HEIGHT - 8}" text-anchor="end">${escapeHtml(last)}</text>`,
      );
  }
  return `<svg id="trend-chart" role="img" aria-label="lower bound, mean score and pass rate of ${points.length} full runs against the tier thresholds" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" xmlns="http://www.w3.org/2000/svg">${parts.join("")}${legend()}</svg>`;
}
