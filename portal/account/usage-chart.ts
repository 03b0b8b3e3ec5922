// The usage page's charts, drawn on the server as inline SVG: calls per hour or day stacked by status class
// (bars, left axis) with median and p95 latency (lines, right axis). No script draws or loads anything.
//
// Horizontal positions are percentages of the chart's width and vertical ones pixels, so one drawing fits a
// phone and a desktop without scaling its text; the axis labels sit outside the SVG's box, in its frame's
// padding (style.css: .usage-chart, overflow visible), placed with dx. Colours are classes that style.css
// maps to variables, so both themes apply and the page's CSP (no inline style) holds. Screen readers get the
// chart's title and a summary of its figures; every bucket's figures are in the table under it, and each
// bar carries them in a <title> (the tooltip a pointer shows).
import { html, type Safe } from '../../engine/html.js';
import type { Bucket, History } from '../../features/usage/usage.js';
import { count } from '../shared/format.js';

/** The frame's geometry, in px: the plot between TOP and TOP + PLOT, the x labels under it. */
export const HEIGHT = 236;
const TOP = 28;
const PLOT = 172;
const BOTTOM = TOP + PLOT;
/** Horizontal lines of the grid: the axes' maximum is split in this many steps. */
const STEPS = 4;
/** Of each bar's slot, the share the bar fills. */
const BAR = 0.7;

export interface ChartOptions {
  /** The id its title and summary are found by (ids in the page: `<id>-chart-title`, `<id>-chart-desc`). */
  id: string;
  /** Hours or days: how the buckets are labelled. */
  unit: 'hour' | 'day';
  /** The status classes drawn, bottom first (the ones the tables show). */
  classes: string[];
}

/** The chart of one period as an <svg> element, with its legend. */
export function usageChart(h: History, o: ChartOptions): Safe {
  const buckets = h.buckets;
  const n = buckets.length;
  const total = buckets.reduce((s, b) => s + amount(b.total), 0);
  const calls = axis(Math.max(0, ...buckets.map((b) => amount(b.total))), true);
  const latencies = buckets.flatMap((b) => [b.p50Ms, b.p95Ms]).filter((v): v is number => v !== null && Number.isFinite(v));
  const ms = latencies.length ? axis(Math.max(...latencies.map(amount)), false) : undefined;
  const slot = n ? 100 / n : 100;
  const title = `Calls per ${o.unit}, the last ${n} ${o.unit}${n === 1 ? '' : 's'}, by status class${ms ? ', with median and 95th-percentile latency' : ''}`;

  return html`<svg class="usage-chart" width="100%" height="${HEIGHT}" role="img" aria-labelledby="${o.id}-chart-title" aria-describedby="${o.id}-chart-desc" focusable="false">
<title id="${o.id}-chart-title">${title}</title>
<desc id="${o.id}-chart-desc">${summary(h, o, total)}</desc>
<g class="grid">${grid(calls, ms)}</g>
<g class="bars">${buckets.map((b, i) => bucket(b, i, slot, calls, o))}</g>
${ms ? html`<g class="latency">${line(buckets, (b) => b.p50Ms, 'p50', slot, ms)}${line(buckets, (b) => b.p95Ms, 'p95', slot, ms)}</g>` : ''}
<g class="ticks">${ticks(buckets, slot, o.unit)}</g>
${total ? '' : html`<text class="empty" x="50%" y="${TOP + (PLOT * 3) / 8}" dy="5" text-anchor="middle">No calls in this period</text>`}
</svg>
${total ? legend(o.classes, ms !== undefined) : ''}`;
}

/** What the colours and lines stand for (the summary says it to screen readers). */
const legend = (classes: string[], latency: boolean) =>
  html`<ul class="chart-legend" aria-hidden="true">${classes.map((c) => html`<li><span class="swatch c${c}"></span>${c}</li>`)}${
    latency ? html`<li><span class="swatch line p50"></span>median ms</li><li><span class="swatch line p95"></span>p95 ms</li>` : ''
  }</ul>`;

interface Axis {
  max: number;
  step: number;
}

/** A count from the store, as a finite number of at least 0. */
const amount = (v: number | null) => (v !== null && Number.isFinite(v) && v > 0 ? v : 0);

/**
 * An axis from 0 to a round maximum at or above `top`, in STEPS steps of a round number times a power of ten
 * (whole steps for counts). An empty axis still has a scale: 0 to STEPS.
 */
export function axis(top: number, whole: boolean): Axis {
  const rough = top / STEPS;
  if (!(rough > 0) || !Number.isFinite(rough)) return { max: STEPS, step: 1 };
  const power = 10 ** Math.floor(Math.log10(rough));
  let step = [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10].map((m) => m * power).find((s) => s >= rough * (1 - 1e-12)) ?? 10 * power;
  if (whole) step = Math.max(1, Math.ceil(step));
  return { max: step * STEPS, step };
}

/** The y (px) of `v` on an axis. */
const yOf = (v: number, a: Axis) => round(BOTTOM - (Math.min(amount(v), a.max) / a.max) * PLOT);

const round = (v: number) => Math.round(v * 100) / 100;
const pct = (v: number) => `${round(v)}%`;

const COMPACT = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });
/** An axis label: 950, 1.2K, 3M. */
export const short = (v: number) => (v < 1000 ? String(round(v)) : COMPACT.format(v));

/** The grid's lines with the calls' labels left of the plot and the latency's right of it. */
function grid(calls: Axis, ms: Axis | undefined): Safe[] {
  const out: Safe[] = [];
  for (let i = 0; i <= STEPS; i++) {
    const y = round(BOTTOM - (i / STEPS) * PLOT);
    out.push(html`<line class="${i ? 'rule' : 'base'}" x1="0" x2="100%" y1="${y}" y2="${y}"/>
<text x="0" dx="-6" y="${y}" dy="4" text-anchor="end">${short(calls.step * i)}</text>`);
    if (ms) out.push(html`<text x="100%" dx="6" y="${y}" dy="4">${short(ms.step * i)}</text>`);
  }
  out.push(html`<text class="unit" x="0" dx="-6" y="${TOP - 14}" text-anchor="end">calls</text>`);
  if (ms) out.push(html`<text class="unit" x="100%" dx="6" y="${TOP - 14}">ms</text>`);
  return out;
}

/** One bucket's bars, stacked by class, under a full-height area that shows its figures on hover. */
function bucket(b: Bucket, i: number, slot: number, calls: Axis, o: ChartOptions): Safe {
  const x = pct(i * slot + (slot * (1 - BAR)) / 2);
  const width = pct(slot * BAR);
  let base = 0;
  const bars: Safe[] = [];
  for (const c of o.classes) {
    const v = amount(b.classes[c] ?? 0);
    if (!v) continue;
    const y0 = yOf(base, calls);
    base += v;
    const y1 = yOf(base, calls);
    bars.push(html`<rect class="c${c}" x="${x}" width="${width}" y="${y1}" height="${round(y0 - y1)}"/>`);
  }
  return html`<g><title>${bucketText(b, o)}</title><rect class="hit" x="${pct(i * slot)}" width="${pct(slot)}" y="${TOP}" height="${PLOT}"/>${bars}</g>`;
}

/**
 * A latency series as segments between its points (across buckets without calls), and its points: the
 * median's larger than the p95's, so where both are the same the median still shows, as a ring.
 */
function line(buckets: Bucket[], value: (b: Bucket) => number | null, cls: 'p50' | 'p95', slot: number, a: Axis): Safe {
  const points = buckets.flatMap((b, i) => {
    const v = value(b);
    return v === null || !Number.isFinite(v) ? [] : [{ x: pct((i + 0.5) * slot), y: yOf(v, a) }];
  });
  const segments = points.slice(1).map((p, i) => html`<line x1="${points[i].x}" y1="${points[i].y}" x2="${p.x}" y2="${p.y}"/>`);
  return html`<g class="${cls}">${segments}${points.map((p) => html`<circle cx="${p.x}" cy="${p.y}" r="${cls === 'p50' ? 4 : 2.5}"/>`)}</g>`;
}

/**
 * Labels under the bars, counted back from the newest bucket: every 6 hours or 7 days on a narrow screen,
 * every 2 hours or 3 days on a wide one (style.css shows the ones of the width at hand).
 */
function ticks(buckets: Bucket[], slot: number, unit: 'hour' | 'day'): Safe[] {
  const [narrow, wide] = unit === 'hour' ? [6, 2] : [7, 3];
  const last = buckets.length - 1;
  return buckets.flatMap((b, i) => {
    const back = last - i;
    const onNarrow = back % narrow === 0;
    const onWide = back % wide === 0;
    if (!onNarrow && !onWide) return [];
    const cls = onNarrow && onWide ? 'tick' : onNarrow ? 'tick narrow' : 'tick wide';
    const hour = unit === 'hour' ? html` data-hour="${b.start}"` : '';
    return [
      html`<text class="${cls}" x="${pct((i + 0.5) * slot)}" y="${BOTTOM + 18}" text-anchor="middle"${hour}>${label(b.start, unit)}</text>`,
    ];
  });
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "21:00" (UTC; dashboard.js shows the reader's time zone) or "Nov 3" (days are UTC days). */
function label(iso: string, unit: 'hour' | 'day'): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return unit === 'hour' ? d.toISOString().slice(11, 16) : `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}`;
}

/** When a bucket is, in words: "Nov 3, 21:00 UTC" or "Nov 3 (UTC)". */
function when(iso: string, unit: 'hour' | 'day'): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const day = `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}`;
  return unit === 'hour' ? `${day}, ${label(iso, 'hour')} UTC` : `${day} (UTC)`;
}

const plural = (n: number, one: string) => `${count(n)} ${one}${n === 1 ? '' : 's'}`;

/** One bucket's figures: "Nov 3, 21:00 UTC: 12 calls (2xx 10, 4xx 2); median 45 ms, p95 120 ms". */
function bucketText(b: Bucket, o: ChartOptions): string {
  const total = amount(b.total);
  if (!total) return `${when(b.start, o.unit)}: no calls`;
  const parts = o.classes.filter((c) => amount(b.classes[c] ?? 0)).map((c) => `${c} ${count(amount(b.classes[c]))}`);
  const latency = b.p50Ms === null ? '' : `; median ${count(b.p50Ms)} ms, p95 ${b.p95Ms === null ? '–' : count(b.p95Ms)} ms`;
  return `${when(b.start, o.unit)}: ${plural(total, 'call')} (${parts.join(', ')})${latency}`;
}

/** What the chart shows, for a screen reader: totals, the busiest bucket, the latency, where the table is. */
function summary(h: History, o: ChartOptions, total: number): string {
  const table = `Every ${o.unit}'s figures are in the table "Figures per ${o.unit}" below.`;
  if (!total) return `No calls in this period. ${table}`;
  const byClass = o.classes.map((c) => `${c} ${count(h.buckets.reduce((s, b) => s + amount(b.classes[c] ?? 0), 0))}`);
  const busiest = h.buckets.reduce((a, b) => (amount(b.total) > amount(a.total) ? b : a));
  const latency =
    h.p50Ms === null ? '' : ` Median latency ${count(h.p50Ms)} ms, 95th percentile ${h.p95Ms === null ? '–' : count(h.p95Ms)} ms.`;
  return `${plural(total, 'call')}: ${byClass.join(', ')}. Busiest ${o.unit}: ${when(busiest.start, o.unit)}, ${plural(amount(busiest.total), 'call')}.${latency} ${table}`;
}
