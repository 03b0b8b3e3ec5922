// Draws the usage page's charts with chart.js (loaded before this file from /portal/vendor) from the
// page's JSON block: calls per hour or day stacked by status class, with median and p95 latency as lines
// on a second axis. The tables under them keep every figure for readers without JavaScript.
(() => {
  const source = document.getElementById('usage-data');
  if (!source || !window.Chart) return;
  const data = JSON.parse(source.textContent);
  // Axis text and grid in the page's colours, so the charts read in the dark theme too (drawn once: a
  // theme changed afterwards shows on the next page).
  const css = getComputedStyle(document.documentElement);
  window.Chart.defaults.color = css.getPropertyValue('--muted').trim() || '#5b6472';
  window.Chart.defaults.borderColor = css.getPropertyValue('--line').trim() || '#dde1e7';
  const colors = { '1xx': '#868e96', '2xx': '#2b8a3e', '3xx': '#1c7ed6', '4xx': '#e67700', '5xx': '#c92a2a' };
  const hourLabel = (iso) => new Date(iso).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  const dayLabel = (iso) => new Date(iso).toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });

  for (const box of document.querySelectorAll('[data-chart]')) {
    const series = data[box.dataset.chart];
    if (!series) continue;
    const label = box.dataset.chart === 'daily' ? dayLabel : hourLabel;
    const bars = Object.entries(series.classes).map(([cls, values]) => ({
      type: 'bar',
      label: cls,
      data: values,
      backgroundColor: colors[cls],
      stack: 'calls',
      yAxisID: 'calls',
      order: 2,
    }));
    const line = (name, values, color, dash) => ({
      type: 'line',
      label: name,
      data: values,
      borderColor: color,
      backgroundColor: color,
      borderDash: dash,
      yAxisID: 'ms',
      spanGaps: true,
      pointRadius: 2,
      borderWidth: 2,
      order: 1,
    });
    box.hidden = false;
    // The table stays one click away; the chart shows the same figures.
    box.parentElement.querySelector('[data-figures]')?.removeAttribute('open');
    new window.Chart(box.querySelector('canvas'), {
      data: {
        labels: series.starts.map(label),
        datasets: [...bars, line('median ms', series.p50, '#3b5bdb', []), line('p95 ms', series.p95, '#7048e8', [6, 4])],
      },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        interaction: { mode: 'index', intersect: false },
        scales: {
          x: { stacked: true, ticks: { maxRotation: 0, autoSkip: true, autoSkipPadding: 8 } },
          calls: {
            type: 'linear',
            position: 'left',
            stacked: true,
            beginAtZero: true,
            title: { display: true, text: 'calls' },
            ticks: { precision: 0 },
          },
          ms: {
            type: 'linear',
            position: 'right',
            beginAtZero: true,
            title: { display: true, text: 'ms' },
            grid: { drawOnChartArea: false },
          },
        },
        // Status classes first in the legend, then the latency lines (as the datasets are listed).
        plugins: { legend: { position: 'bottom', labels: { boxWidth: 12, sort: (a, b) => a.datasetIndex - b.datasetIndex } } },
      },
    });
  }
})();
