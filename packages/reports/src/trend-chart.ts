import { escapeHtml } from "./escape.ts";
import type { ReportTier, TrendPoint } from "./report-data.ts";

const WIDTH = 760;
const HEIGHT = 260;
const PAD = { left: 44, right: 96, top: 16, bottom: 30 };

const x = (index: number, count: number): number =>
  count <= 1 ? PAD.left + (WIDTH - PAD.left - PAD.right) / 2 : PAD.left + (index * (WIDTH - PAD.left - PAD.right)) / (count - 1);
const y = (value: number): number => PAD.top + (1 - value) * (HEIGHT - PAD.top - PAD.bottom);
const fixed = (value: number): string => value.toFixed(1);

function series(points: readonly TrendPoint[], value: (point: TrendPoint) => number, cssClass: string, label: string): string {
  const coords = points.map((point, index) => `${fixed(x(index, points.length))},${fixed(y(value(point)))}`);
  const line = points.length > 1 ? `<polyline class="${cssClass}" fill="none" points="${coords.join(" ")}"/>` : "";
  const dots = points
    .map((point, index) => `<circle class="${cssClass}" cx="${coords[index]!.split(",")[0]}" cy="${coords[index]!.split(",")[1]}" r="3.5"><title>${escapeHtml(`${point.run_id}: ${label} ${value(point).toFixed(3)}`)}</title></circle>`)
    .join("");
  return line + dots;
}

/**
 * The trend chart as inline SVG: lower bound and mean of each full run (oldest left) against the tier
 * thresholds. Our own few lines rather than a chart library: the report has no network and a strict CSP,
 * so any library would be inlined whole and hashed, for two polylines and some dashed rules.
 */
export function trendChartSvg(points: readonly TrendPoint[], tiers: readonly ReportTier[], currentRunId: string): string {
  const parts: string[] = [];
  for (const tick of [0, 0.25, 0.5, 0.75, 1]) {
    parts.push(`<line class="grid" x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${fixed(y(tick))}" y2="${fixed(y(tick))}"/>`);
    parts.push(`<text class="axis" x="${PAD.left - 6}" y="${fixed(y(tick) + 4)}" text-anchor="end">${tick.toFixed(2)}</text>`);
  }
  for (const tier of tiers) {
    parts.push(`<line class="tier" x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${fixed(y(tier.threshold))}" y2="${fixed(y(tier.threshold))}"/>`);
    parts.push(`<text class="tier-label" x="${WIDTH - PAD.right + 6}" y="${fixed(y(tier.threshold) + 4)}">${escapeHtml(`${tier.name} ${tier.threshold}`)}</text>`);
  }
  if (points.length === 0) {
    parts.push(`<text class="axis" x="${WIDTH / 2}" y="${HEIGHT / 2}" text-anchor="middle">no complete full run of this task class in the chain</text>`);
  } else {
    parts.push(series(points, (point) => point.mean_score, "mean", "mean"));
    parts.push(series(points, (point) => point.lower_bound_95, "bound", "lower bound"));
    const current = points.findIndex((point) => point.run_id === currentRunId);
    if (current !== -1) parts.push(`<line class="current" x1="${fixed(x(current, points.length))}" x2="${fixed(x(current, points.length))}" y1="${PAD.top}" y2="${HEIGHT - PAD.bottom}"/>`);
    parts.push(`<text class="axis" x="${PAD.left}" y="${HEIGHT - 8}">${escapeHtml(points[0]!.ended_at.slice(0, 10))}</text>`);
    if (points.length > 1) parts.push(`<text class="axis" x="${WIDTH - PAD.right}" y="${HEIGHT - 8}" text-anchor="end">${escapeHtml(points.at(-1)!.ended_at.slice(0, 10))}</text>`);
  }
  const legend = `<text class="legend bound" x="${PAD.left + 4}" y="${PAD.top + 12}">lower bound (95%)</text><text class="legend mean" x="${PAD.left + 140}" y="${PAD.top + 12}">mean</text>`;
  return `<svg id="trend-chart" role="img" aria-label="lower bound and mean of ${points.length} full runs against the tier thresholds" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" xmlns="http://www.w3.org/2000/svg">${parts.join("")}${legend}</svg>`;
}
