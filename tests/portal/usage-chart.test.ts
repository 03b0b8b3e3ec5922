// The usage page's charts as SVG drawn on the server (portal/account/usage-chart.ts): a bar per bucket
// stacked by status class, the latency lines, the axes and labels, the summary a screen reader gets, and
// what odd figures (none, one bucket, huge ones, hostile text) make of it.
import type { Bucket, History } from '../../features/usage/usage.js';
import { axis, HEIGHT, short, usageChart, type ChartOptions } from '../../portal/account/usage-chart.js';

const HOUR = 3_600_000;
const START = Date.UTC(2026, 10, 29, 0);

function history(buckets: Bucket[], p50Ms: number | null = null, p95Ms: number | null = null): History {
  const total = buckets.reduce((s, b) => s + b.total, 0);
  return { period: 'hour', buckets, endpoints: [], total, p50Ms, p95Ms };
}

function bucket(i: number, classes: Record<string, number>, p50Ms: number | null = null, p95Ms: number | null = null, step = HOUR): Bucket {
  const total = Object.values(classes).reduce((s, n) => s + n, 0);
  return { start: new Date(START + i * step).toISOString(), total, classes, p50Ms, p95Ms };
}

const hourly: ChartOptions = { id: 'hourly', unit: 'hour', classes: ['2xx', '4xx'] };
const svg = (h: History, o: ChartOptions = hourly) => usageChart(h, o).toString();
const all = (s: string, re: RegExp) => [...s.matchAll(re)];
/** The attribute `name` of every element of `tag` with class `cls`. */
const attrs = (s: string, tag: string, cls: string, name: string) =>
  all(s, new RegExp(`<${tag} class="${cls}"[^>]*?\\s${name}="([^"]*)"`, 'g')).map((m) => m[1]);

describe('a day of hours', () => {
  // 24 hours: calls in every third hour (2xx, and a 4xx in every sixth), latency where there were calls.
  const buckets = Array.from({ length: 24 }, (_, i) =>
    i % 3 ? bucket(i, {}) : bucket(i, i % 6 ? { '2xx': i } : { '2xx': i, '4xx': 1 }, 10 + i, 40 + i),
  );
  const out = svg(history(buckets, 20, 60));

  test('a bar per class per bucket with calls, and a hover area with its figures per bucket', () => {
    expect(attrs(out, 'rect', 'c2xx', 'x')).toHaveLength(7); // hour 0 has no 2xx calls: 0 is not drawn
    expect(attrs(out, 'rect', 'c4xx', 'x')).toHaveLength(4);
    expect(attrs(out, 'rect', 'hit', 'x')).toHaveLength(24);
    expect(out).toContain('<title>Nov 29, 00:00 UTC: 1 call (4xx 1); median 10 ms, p95 40 ms</title>');
    expect(out).toContain('<title>Nov 29, 01:00 UTC: no calls</title>');
    expect(out).toContain('<title>Nov 29, 18:00 UTC: 19 calls (2xx 18, 4xx 1); median 28 ms, p95 58 ms</title>');
  });

  test('bars stand on the base line, stack without gaps and the tallest fits under the top rule', () => {
    // 21 calls at most: an axis of 0–24 in steps of 6, 172 px tall from y 28 to y 200.
    expect(all(out, /<text x="0" dx="-6" y="[\d.]+" dy="4" text-anchor="end">(\d+)<\/text>/g).map((m) => m[1])).toEqual([
      '0',
      '6',
      '12',
      '18',
      '24',
    ]);
    const hour18 = /<title>Nov 29, 18:00[^<]*<\/title>(.*?)<\/g>/.exec(out)![1];
    const [ok, client] = [/class="c2xx"[^>]*y="([\d.]+)" height="([\d.]+)"/, /class="c4xx"[^>]*y="([\d.]+)" height="([\d.]+)"/].map((re) =>
      re.exec(hour18)!.slice(1).map(Number),
    );
    expect(ok[0] + ok[1]).toBeCloseTo(200); // 2xx from the base line
    expect(ok[1]).toBeCloseTo((18 / 24) * 172);
    expect(client[0] + client[1]).toBeCloseTo(ok[0]); // 4xx on top of it
    expect(client[0]).toBeCloseTo(200 - (19 / 24) * 172);
  });

  test('bars sit in their slots across the whole width, in order', () => {
    const xs = attrs(out, 'rect', 'hit', 'x').map(parseFloat);
    expect(xs[0]).toBe(0);
    expect(xs[23]).toBeCloseTo(100 - 100 / 24);
    expect(xs).toEqual([...xs].sort((a, b) => a - b));
    for (const w of attrs(out, 'rect', 'c2xx', 'width')) expect(parseFloat(w)).toBeCloseTo((100 / 24) * 0.7, 1);
  });

  test('median and p95 are points joined by lines, on an axis of their own on the right', () => {
    for (const series of ['p50', 'p95']) {
      const group = new RegExp(`<g class="${series}">(.*?)</g>`).exec(out)![1];
      expect(all(group, /<circle /g)).toHaveLength(8);
      expect(all(group, /<line /g)).toHaveLength(7);
    }
    // 61 ms at most: 0–80 in steps of 20, labelled right of the plot.
    expect(all(out, /<text x="100%" dx="6" y="[\d.]+" dy="4">(\d+)<\/text>/g).map((m) => m[1])).toEqual(['0', '20', '40', '60', '80']);
    expect(out).toContain('>ms</text>');
    expect(out).toContain('<span class="swatch line p95"></span>p95 ms');
  });

  test('hours are labelled every 6 on a phone and every 2 on a wide screen, counted back from the last', () => {
    const ticks = all(out, /<text class="(tick[^"]*)"[^>]*data-hour="([^"]+)">([^<]*)<\/text>/g).map((m) => [m[1], m[3]]);
    expect(ticks.filter(([c]) => c === 'tick').map(([, t]) => t)).toEqual(['05:00', '11:00', '17:00', '23:00']);
    expect(ticks.filter(([c]) => c === 'tick wide')).toHaveLength(8);
    expect(ticks.filter(([c]) => c === 'tick narrow')).toHaveLength(0);
  });

  test('a screen reader gets the title, the totals, the busiest hour and where the table is', () => {
    expect(out).toMatch(
      /^<svg class="usage-chart" width="100%" height="236" role="img" aria-labelledby="hourly-chart-title" aria-describedby="hourly-chart-desc"/,
    );
    expect(out).toContain(
      '<title id="hourly-chart-title">Calls per hour, the last 24 hours, by status class, with median and 95th-percentile latency</title>',
    );
    expect(out).toContain(
      '<desc id="hourly-chart-desc">88 calls: 2xx 84, 4xx 4. Busiest hour: Nov 29, 21:00 UTC, 21 calls. Median latency 20 ms, 95th percentile 60 ms. Every hour&#39;s figures are in the table &quot;Figures per hour&quot; below.</desc>',
    );
    // The legend repeats what the summary says: hidden from screen readers.
    expect(out).toContain('<ul class="chart-legend" aria-hidden="true"><li><span class="swatch c2xx"></span>2xx</li>');
  });

  test('colours are classes (both themes, no inline style)', () => {
    expect(out).not.toMatch(/style=|fill="#|stroke="#/);
  });
});

test('days are labelled as UTC dates every 7 days on a phone and every 3 on a wide screen, without data-hour', () => {
  const days = Array.from({ length: 30 }, (_, i) => bucket(i, { '2xx': 1 }, 5, 9, 24 * HOUR));
  const out = svg({ ...history(days), period: 'day' }, { id: 'daily', unit: 'day', classes: ['2xx', '4xx'] });
  const ticks = all(out, /<text class="(tick[^"]*)"[^>]*>([^<]*)<\/text>/g).map((m) => [m[1], m[2]]);
  expect(ticks.filter(([c]) => c !== 'tick wide').map(([, t]) => t)).toEqual(['Nov 30', 'Dec 7', 'Dec 14', 'Dec 21', 'Dec 28']);
  expect(ticks.filter(([c]) => c === 'tick' || c === 'tick wide')).toHaveLength(10);
  expect(out).not.toContain('data-hour');
  expect(out).toContain('<title>Dec 28 (UTC): 1 call (2xx 1); median 5 ms, p95 9 ms</title>');
  expect(out).toContain('aria-labelledby="daily-chart-title"');
});

test('a period without calls: the frame, a 0–4 scale, no bars or latency, and says so', () => {
  const out = svg(history(Array.from({ length: 24 }, (_, i) => bucket(i, {}))));
  expect(out).not.toMatch(/<rect class="c/);
  expect(out).not.toMatch(/<circle|class="latency"|>ms<\/text>|median ms/);
  expect(attrs(out, 'rect', 'hit', 'x')).toHaveLength(24);
  expect(out).toContain('<text class="empty" x="50%" y="92.5" dy="5" text-anchor="middle">No calls in this period</text>');
  expect(out).not.toContain('chart-legend');
  expect(out).toContain('<desc id="hourly-chart-desc">No calls in this period. Every hour&#39;s figures');
  expect(out).toContain('<title id="hourly-chart-title">Calls per hour, the last 24 hours, by status class</title>');
  expect(all(out, /dy="4" text-anchor="end">(\d+)<\/text>/g).map((m) => m[1])).toEqual(['0', '1', '2', '3', '4']);
});

test('no buckets at all still draws a valid frame', () => {
  const out = svg(history([]));
  expect(out).not.toMatch(/NaN|Infinity|undefined/);
  expect(out).toContain('No calls in this period');
  expect(out).not.toContain('<rect');
});

test('a single bucket: one bar in the middle of the width, a point per latency and no line', () => {
  const out = svg(history([bucket(0, { '2xx': 3 }, 12, 30)], 12, 30));
  expect(attrs(out, 'rect', 'c2xx', 'x')).toEqual(['15%']);
  expect(attrs(out, 'rect', 'c2xx', 'width')).toEqual(['70%']);
  // Median and p95 points, the median's the larger (a ring around the p95's where they meet).
  expect(all(out, /<g class="(p50|p95)"><circle cx="50%" cy="[\d.]+" r="([\d.]+)"\/><\/g>/g).map((m) => [m[1], m[2]])).toEqual([
    ['p50', '4'],
    ['p95', '2.5'],
  ]);
  expect(out).not.toMatch(/<line x1=/);
  expect(out).toContain('Calls per hour, the last 1 hour, by status class');
  expect(all(out, /<text class="tick"[^>]*>00:00<\/text>/g)).toHaveLength(1);
});

test('huge figures: short labels, every bar inside the plot, no NaN', () => {
  const out = svg(
    history(
      [bucket(0, { '2xx': 1e15 }, 2e6, 9e9), bucket(1, { '2xx': 4e14, '4xx': 6e14 }, 1, 2), bucket(2, { '2xx': 1 }, null, null)],
      5e5,
      9e9,
    ),
  );
  expect(out).not.toMatch(/NaN|Infinity|e\+/);
  expect(all(out, /dy="4" text-anchor="end">([^<]+)<\/text>/g).map((m) => m[1])).toEqual(['0', '250T', '500T', '750T', '1000T']);
  expect(all(out, /<text x="100%" dx="6" y="[\d.]+" dy="4">([^<]+)<\/text>/g).map((m) => m[1])).toEqual(['0', '2.5B', '5B', '7.5B', '10B']);
  for (const y of attrs(out, 'rect', 'c[24]xx', 'y')) expect(Number(y)).toBeGreaterThanOrEqual(28);
  expect(out).toContain('1,000,000,000,000,000 calls (2xx 1,000,000,000,000,000)');
  // A value the store should never hold draws as nothing rather than breaking the drawing.
  const odd = svg(history([bucket(0, { '2xx': Infinity }, NaN, -5), bucket(1, { '2xx': 2 }, 7, 9)]));
  expect(odd).not.toMatch(/NaN|Infinity/);
  expect(attrs(odd, 'rect', 'c2xx', 'x')).toEqual(['57.5%']); // the second bucket's only
  expect(all(odd, /<circle /g)).toHaveLength(3); // 7 and 9 ms, and -5 drawn at 0
});

test('text from the figures is escaped', () => {
  const hostile = '<script>alert("x")</script>';
  const out = svg(history([{ start: hostile, total: 1, classes: { [hostile]: 1 }, p50Ms: null, p95Ms: null }]), {
    id: `a"><img src=x onerror=alert(1)>`,
    unit: 'hour',
    classes: [hostile],
  });
  expect(out).not.toContain('<script');
  expect(out).not.toContain('<img');
  expect(out).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
  expect(out).toContain('aria-labelledby="a&quot;&gt;&lt;img src=x onerror=alert(1)&gt;-chart-title"');
});

describe('axis', () => {
  test.each([
    [0, true, 4, 1],
    [1, true, 4, 1],
    [6, true, 8, 2],
    [19, true, 20, 5],
    [101, true, 120, 30],
    [58, false, 60, 15],
    [0.37, false, 0.4, 0.1],
    [1e15, true, 1e15, 2.5e14],
  ])('%p (whole: %p) → 0 to %p in steps of %p', (top, whole, max, step) => {
    const a = axis(top, whole);
    expect(a.max).toBeCloseTo(max);
    expect(a.step).toBeCloseTo(step);
    expect(a.max).toBeGreaterThanOrEqual(top);
  });

  test('short labels', () => {
    expect([0, 7.5, 950, 1200, 15_000, 3e6, 2.5e9].map(short)).toEqual(['0', '7.5', '950', '1.2K', '15K', '3M', '2.5B']);
  });

  test('the drawing is as tall as it says', () => {
    expect(svg(history([]))).toContain(`height="${HEIGHT}"`);
  });
});
