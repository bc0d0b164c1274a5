import { markup, type SafeHtml } from './html.js';

/** One value of a series at a moment (a day's end, a snapshot). */
export interface ChartPoint {
  at: Date;
  value: number;
}

/** The drawing area of every chart, in viewBox units: narrow enough that its labels read at 390 px. */
export const CHART = { width: 400, height: 200, left: 52, right: 388, top: 14, bottom: 168 } as const;

const NUMBERS = new Intl.NumberFormat('en-US');
const COMPACT = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });

/**
 * A line chart as inline SVG, drawn on the server (no script): time along x, 0 to a round maximum
 * along y, every point a circle carrying its day and value (`data-at`, `data-value`) and a tooltip.
 * Colours come from the stylesheet, so it follows the light and dark themes.
 */
export function lineChart(chart: { label: string; unit: string; points: readonly ChartPoint[] }): SafeHtml {
  const { points, unit } = chart;
  const axisMax = roundUp(Math.max(0, ...points.map((point) => point.value)));
  const first = points[0]?.at.getTime() ?? 0;
  const last = points.at(-1)?.at.getTime() ?? first;
  const x = (at: Date) =>
    last === first
      ? (CHART.left + CHART.right) / 2
      : CHART.left + ((at.getTime() - first) / (last - first)) * (CHART.right - CHART.left);
  const y = (value: number) => CHART.bottom - (value / axisMax) * (CHART.bottom - CHART.top);
  const placed = points.map((point) => ({ ...point, x: fixed(x(point.at)), y: fixed(y(point.value)) }));
  const ticks = [0, axisMax / 2, axisMax];
  const dates = points.length > 1 ? [points[0], points.at(-1)] : points.slice(0, 1);
  return markup`<svg
    class="chart"
    viewBox="0 0 ${CHART.width} ${CHART.height}"
    role="img"
    aria-label="${chart.label}"
    data-axis-max="${axisMax}"
  >
    <title>${chart.label}</title>
    ${ticks.map(
      (
        tick,
      ) => markup`<line class="grid" x1="${CHART.left}" x2="${CHART.right}" y1="${fixed(y(tick))}" y2="${fixed(y(tick))}" />
        <text class="tick" x="${CHART.left - 6}" y="${fixed(y(tick) + 4)}" text-anchor="end">${COMPACT.format(tick)}</text>`,
    )}
    ${dates.map(
      (point, i) =>
        point &&
        markup`<text
          class="tick"
          x="${fixed(x(point.at))}"
          y="${CHART.height - 8}"
          text-anchor="${dates.length === 1 ? 'middle' : i === 0 ? 'start' : 'end'}"
        >
          ${dayLabel(point.at)}
        </text>`,
    )}
    ${placed.length > 1 ? markup`<polyline class="line" points="${placed.map((p) => `${p.x},${p.y}`).join(' ')}" />` : ''}
    ${placed.map(
      (p) =>
        markup`<circle class="dot" cx="${p.x}" cy="${p.y}" r="${placed.length > 40 ? 1.5 : 3}" data-at="${p.at.toISOString()}" data-value="${p.value}">
          <title>${dayLabel(p.at)}: ${NUMBERS.format(p.value)} ${unit}</title>
        </circle>`,
    )}
  </svg>`;
}

/** The y axis' top: the smallest 1, 2 or 5 times a power of ten at or above `value` (1 for nothing). */
export function roundUp(value: number): number {
  if (value <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

/** "Nov 26", in UTC like every date on the pages. */
function dayLabel(at: Date): string {
  return at.toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
}

function fixed(n: number): string {
  return (Math.round(n * 10) / 10).toString();
}
