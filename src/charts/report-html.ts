// The report page, built from its data (pure but for the SVG rendering): one HTML file with its
// styles, script and data inline. Each chart is first a static SVG (readable with scripts off); when
// scripts run, ECharts redraws it from the same option with tooltips and legend toggles, and the
// profile gets a slider through the captures of the window. A Content-Security-Policy forbids any
// request, so the page works from file:// with no network.
import type { EChartsOption } from 'echarts';
import { captureTime, millions, pairName, price } from './format.js';
import { levelsOption } from './levels.js';
import { profileOption } from './profile.js';
import type { PairReport, ReportData } from './report-data.js';
import { renderSvg } from './render.js';
import { paletteOf } from './theme.js';
import type { Look } from './types.js';
import { wallsOption } from './walls.js';

export interface ReportPage {
  look: Look;
  /** The ECharts browser bundle, inlined. */
  echartsScript: string;
  sessions: number;
  rangePct: number;
}

interface ChartSpec {
  width: number;
  height: number;
  /** One option, or the frames of a slider (the last one drawn first). */
  option?: EChartsOption;
  frames?: EChartsOption[];
  labels?: string[];
}

const MISSING_LISTED = 6;

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

/** JSON that is safe inside a <script> element. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

function table(head: string[], rows: string[][]): string {
  const th = head.map((h) => `<th>${escapeHtml(h)}</th>`).join('');
  const tr = rows.map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join('')}</tr>`).join('\n');
  return `<table><thead><tr>${th}</tr></thead><tbody>\n${tr}\n</tbody></table>`;
}

const orDash = (v: number | string | null): string => (v === null ? '-' : String(v));
const signed = (v: number | null): string => (v === null ? '-' : `${v >= 0 ? '+' : '-'}${price(Math.abs(v))}`);

function header(data: ReportData, page: ReportPage): string {
  const coverage = table(
    ['pair', 'remote sessions', 'remote first – last capture', 'held sessions', 'held first – last session', 'gaps (listed, not loaded)'],
    data.coverage.map((c) => [
      pairName(c),
      orDash(c.remoteSessions),
      c.remoteFirst === null ? '-' : `${captureTime(c.remoteFirst)} – ${captureTime(c.remoteLast ?? c.remoteFirst)}`,
      String(c.heldSessions),
      `${orDash(c.heldFirst)} – ${orDash(c.heldLast)}`,
      c.missing.length === 0 ? 'none' : `${c.missing.length}: ${c.missing.slice(0, MISSING_LISTED).join(', ')}${c.missing.length > MISSING_LISTED ? ', …' : ''}`,
    ]),
  );
  const runs =
    data.runs.length === 0
      ? '<p>no run recorded</p>'
      : table(
          ['run', 'command', 'started', 'outcome', 'credits', 'files loaded'],
          data.runs.map((r) => [String(r.runId), r.command, captureTime(r.startedAt), orDash(r.outcome), orDash(r.creditsSpent), orDash(r.filesLoaded)]),
        );
  return `<header>
<h1>gexwh report</h1>
<p class="sub">${data.pairs.length} pair(s) · the last ${page.sessions} sessions each · profiles within ${page.rangePct}% of spot · GEX in $M per 1% move</p>
<h2>Coverage and gaps</h2>
${coverage}
<h2>Last runs</h2>
<p>credits spent by all recorded runs: ${data.creditsSpent}</p>
${runs}
</header>`;
}

function latestTable(report: PairReport): string {
  const l = report.latest;
  if (l === null) return '<p>no levels held</p>';
  return table(
    ['capture', 'type', 'spot', 'Δ 1d', 'Δ 7d', 'flip', 'regime', 'net GEX $M', 'call wall', 'put wall'],
    [[captureTime(l.capturedAt), orDash(l.type), price(l.spot), signed(l.spotDelta1d), signed(l.spotDelta7d), price(l.flip), orDash(l.regime), orDash(millions(l.netGex)), price(l.callWall), price(l.putWall)]],
  );
}

function chartBlock(id: string, kind: string, svg: string, look: Look, extra = ''): string {
  return `<figure class="chart-box"><div class="chart" id="${id}" data-kind="${kind}" style="width:${look.width}px;height:${look.height}px">${svg}</div>${extra}</figure>`;
}

export function buildReportHtml(data: ReportData, page: ReportPage): string {
  const { look } = page;
  const charts: Record<string, ChartSpec> = {};
  const sections: string[] = [];
  data.pairs.forEach((report, i) => {
    const blocks: string[] = [];
    const frames = report.profiles.map((p) => profileOption(p, { net: false }, look));
    const last = frames[frames.length - 1];
    if (last !== undefined) {
      const id = `p${i}-profile`;
      const labels = report.profiles.map((p) => `capture ${captureTime(p.capturedAt)} (close of session ${p.sessionDate})`);
      charts[id] = { width: look.width, height: look.height, frames, labels };
      const slider =
        `<div class="frames js-only"><label for="${id}-slider">profile at the close of</label> ` +
        `<input type="range" id="${id}-slider" min="0" max="${frames.length - 1}" value="${frames.length - 1}" step="1"> ` +
        `<output id="${id}-label">${escapeHtml(labels[labels.length - 1] as string)}</output></div>`;
      blocks.push(chartBlock(id, 'profile', renderSvg(last, look, id), look, slider));
    } else {
      blocks.push('<p>no strikes held for the sessions of the window</p>');
    }
    for (const [kind, option] of [
      ['levels', levelsOption(report.series, look)],
      ['walls', wallsOption(report.series, look)],
    ] as const) {
      const id = `p${i}-${kind}`;
      charts[id] = { width: look.width, height: look.height, option };
      blocks.push(chartBlock(id, kind, renderSvg(option, look, id), look));
    }
    sections.push(`<section class="pair" id="${escapeHtml(`${report.exchange}-${report.symbol}`)}">
<h2>${escapeHtml(pairName(report))}</h2>
${latestTable(report)}
${blocks.join('\n')}
</section>`);
  });
  const palette = paletteOf(look.theme);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>gexwh report</title>
<style>
body { margin: 0 auto; padding: 16px 24px; max-width: ${look.width + 48}px; background: ${palette.background}; color: ${palette.text}; font: 14px/1.4 Inter, system-ui, sans-serif; }
h1 { font-size: 22px; font-weight: 600; margin: 8px 0 2px; }
h2 { font-size: 17px; font-weight: 600; margin: 20px 0 8px; }
.sub { color: ${palette.subtext}; margin: 0 0 12px; }
table { border-collapse: collapse; margin: 4px 0 12px; font-variant-numeric: tabular-nums; }
th, td { border-bottom: 1px solid ${palette.grid}; padding: 3px 10px 3px 0; text-align: left; white-space: nowrap; }
th { color: ${palette.subtext}; font-weight: 500; }
section.pair { border-top: 2px solid ${palette.grid}; margin-top: 24px; }
figure.chart-box { margin: 8px 0 16px; }
.frames { display: flex; align-items: center; gap: 10px; margin: 4px 0 0 16px; color: ${palette.subtext}; }
.frames input { width: 360px; }
.js-only { display: none; }
html.js .js-only { display: flex; }
</style>
</head>
<body>
${header(data, page)}
${sections.join('\n')}
<script>${page.echartsScript}</script>
<script type="application/json" id="gexwh-data">${scriptJson({ charts })}</script>
<script>${CLIENT_SCRIPT}</script>
</body>
</html>
`;
}

/** Hydrates the static charts: the same options, drawn by ECharts in the page. */
const CLIENT_SCRIPT = `
(function () {
  var data = JSON.parse(document.getElementById('gexwh-data').textContent);
  document.documentElement.className += ' js';
  window.gexwhCharts = {};
  Object.keys(data.charts).forEach(function (id) {
    var spec = data.charts[id];
    var el = document.getElementById(id);
    el.innerHTML = '';
    var chart = echarts.init(el, null, { renderer: 'svg', width: spec.width, height: spec.height });
    var frames = spec.frames;
    chart.setOption(frames ? frames[frames.length - 1] : spec.option);
    window.gexwhCharts[id] = chart;
    if (!frames) return;
    var slider = document.getElementById(id + '-slider');
    var label = document.getElementById(id + '-label');
    slider.addEventListener('input', function () {
      var i = Number(slider.value);
      chart.setOption(frames[i], { notMerge: true });
      label.textContent = spec.labels[i];
    });
  });
})();
`;
