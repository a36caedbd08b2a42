// The report page, built from its data (pure but for the SVG rendering): one HTML file with its
// styles, font, script and data inline, a table of contents first. Each chart is first a static SVG
// (readable with scripts off); when scripts run, ECharts redraws it from the same option with
// tooltips and legend toggles, and the profile gets a slider through the captures of the window. A
// Content-Security-Policy forbids any request, so the page works from file:// with no network.
import type { EChartsOption } from 'echarts';
import { fontFaceRule } from './font.js';
import { captureTime, groupThousands, pairName, price, usdMillions } from './format.js';
import { levelsOption } from './levels.js';
import { netGexOption } from './netgex.js';
import { intradayName } from './intraday.js';
import { API_CALL_WALL, API_PUT_WALL, momentText, nearestWallName, profileOption } from './profile.js';
import type { PairReport, ReportData } from './report-data.js';
import { renderSvg } from './render.js';
import { termOption } from './term.js';
import { paletteOf } from './theme.js';
import type { Look, SeriesData } from './types.js';
import { wallsOption } from './walls.js';
import { changesBlock, escapeHtml, latestTable, orDash, table } from './report-desk.js';
import { summarizeDates } from './date-ranges.js';

export interface ReportPage {
  look: Look;
  /** The ECharts browser bundle, inlined. */
  echartsScript: string;
  sessions: number;
  rangePct: number;
}

/** How the page's script formats a chart's tooltip: the value kind of each series by name. */
export interface TooltipSpec {
  trigger: 'axis' | 'item';
  /** The axis value's heading: a price (strikes) or the category text (dates, expirations). */
  header: 'strike' | 'text';
  /** usd: $M drawn, shown as "$3.48M"; signed: "+$3.48M"; price: "76,500"; regime: the band's name when set. */
  series: Record<string, 'usd' | 'signed' | 'price' | 'regime'>;
  /** A net GEX row computed from the call and put series (put drawn negative). */
  net?: [string, string];
}

interface ChartSpec {
  width: number;
  height: number;
  tooltip: TooltipSpec;
  /** One option, or the frames of a slider (the last one drawn first). */
  option?: EChartsOption;
  frames?: EChartsOption[];
  labels?: string[];
}

/** Every character the page may draw in its font: printable ASCII and the signs the charts use. */
export const PAGE_CHARACTERS = `${Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join('')}·–—→←Δ…±`;

const TOOLTIPS = {
  profile: {
    trigger: 'axis',
    header: 'strike',
    series: { 'call GEX': 'usd', 'put GEX': 'usd', 'net GEX': 'signed', 'cumulative net GEX': 'signed' },
    net: ['call GEX', 'put GEX'],
  },
  levels: {
    trigger: 'axis',
    header: 'text',
    series: {
      'spot (close)': 'price',
      flip: 'price',
      [API_CALL_WALL]: 'price',
      [API_PUT_WALL]: 'price',
      'positive regime': 'regime',
      'negative regime': 'regime',
    },
  },
  walls: {
    trigger: 'item',
    header: 'text',
    series: { 'largest +GEX': 'signed', '2nd +GEX': 'signed', 'largest -GEX': 'signed', '2nd -GEX': 'signed', 'spot (close)': 'price' },
  },
  netgex: { trigger: 'axis', header: 'text', series: { 'net GEX': 'signed', 'spot (close)': 'price' } },
  term: { trigger: 'axis', header: 'text', series: { 'net GEX': 'signed', 'open interest': 'usd' } },
} satisfies Record<string, TooltipSpec>;

export { escapeHtml };

/** JSON that is safe inside a <script> element. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

function header(data: ReportData, page: ReportPage): string {
  const zone = page.look.timeZone;
  const coverage = table(
    ['pair', 'remote sessions', 'remote first – last capture', 'held sessions', 'held first – last session', 'gaps (listed, not loaded)'],
    data.coverage.map((c) => [
      pairName(c),
      orDash(c.remoteSessions),
      c.remoteFirst === null ? '-' : `${captureTime(c.remoteFirst, zone)} – ${captureTime(c.remoteLast ?? c.remoteFirst, zone)}`,
      String(c.heldSessions),
      `${orDash(c.heldFirst)} – ${orDash(c.heldLast)}`,
      summarizeDates(c.missing, c.exchange === 'tradfi'),
    ]),
  );
  const runs =
    data.runs.length === 0
      ? '<p>no run recorded</p>'
      : table(
          ['run', 'command', 'started', 'outcome', 'credits', 'files loaded'],
          data.runs.map((r) => [String(r.runId), r.command, captureTime(r.startedAt, zone), orDash(r.outcome), orDash(r.creditsSpent), orDash(r.filesLoaded)]),
        );
  return `<header>
<h1>gexwh report</h1>
<p class="sub">${data.pairs.length} pair(s) · the last ${page.sessions} sessions each · profiles within ${page.rangePct}% of spot · GEX in $M per 1% move</p>
<h2 id="coverage">Coverage and gaps</h2>
${coverage}
<h2 id="runs">Last runs</h2>
<p>credits spent by all recorded runs: ${data.creditsSpent}</p>${onRecordLine(data.onRecord)}
${runs}
</header>`;
}

/** Paid files and credits the archive holds on record, not in the tables yet (numbers only: nothing to escape). */
function onRecordLine(record: ReportData['onRecord']): string {
  if (record === undefined || (record.filesWaiting === 0 && record.creditsNotInRuns === 0)) return '';
  return `\n<p>on record in the archive, not in the warehouse yet: ${record.filesWaiting} paid file(s) waiting to load, ${record.creditsNotInRuns} credit(s) of runs without a finished record (counted above); the next gexwh sync or gexwh load loads them for 0 credits</p>`;
}

function chartBlock(id: string, kind: string, svg: string, look: Look, extra = ''): string {
  return `<figure class="chart-box"><div class="chart" id="${id}" data-kind="${kind}" style="width:${look.width}px;height:${look.height}px">${svg}</div>${extra}</figure>`;
}

const KIND_NAMES: Record<string, string> = { profile: 'profile', levels: 'levels', walls: 'walls', netgex: 'net GEX', term: 'term structure' };

function pairAnchor(report: PairReport): string {
  return `${report.exchange}-${report.symbol}`;
}

/** A table of contents: the header's parts, then per pair its latest reading and links to its charts. */
function contents(data: ReportData, kinds: string[][]): string {
  const rows = data.pairs.map((report, i) => {
    const l = report.latest;
    const reading = l === null ? 'no levels held' : `spot ${price(l.spot)} · regime ${orDash(l.regime)} · net GEX ${usdMillions(l.netGex, true)}`;
    const links = (kinds[i] ?? []).map((kind) => `<a href="#p${i}-${kind}">${escapeHtml(KIND_NAMES[kind] ?? kind)}</a>`).join(' · ');
    return `<li><a href="#${escapeHtml(pairAnchor(report))}">${escapeHtml(pairName(report))}</a> <span class="sub">${escapeHtml(reading)}</span> <span class="links">${links}</span></li>`;
  });
  return `<nav class="toc" id="contents">
<h2>Contents</h2>
<ol>
<li><a href="#coverage">Coverage and gaps</a></li>
<li><a href="#runs">Last runs</a></li>
${rows.join('\n')}
</ol>
</nav>`;
}

interface PairCharts {
  blocks: string[];
  kinds: string[];
}

function profileBlock(report: PairReport, i: number, look: Look, charts: Record<string, ChartSpec>): string | undefined {
  const frames = report.profiles.map((p) => profileOption(p, { net: false }, look));
  const last = frames[frames.length - 1];
  if (last === undefined) return undefined;
  const id = `p${i}-profile`;
  const labels = report.profiles.map((p) => `capture ${captureTime(p.capturedAt, look.timeZone)} (${momentText(p, look.timeZone)})`);
  charts[id] = { width: look.width, height: look.height, tooltip: TOOLTIPS.profile, frames, labels };
  const slider =
    `<div class="frames js-only"><label for="${id}-slider">profile at the close of</label> ` +
    `<input type="range" id="${id}-slider" min="0" max="${frames.length - 1}" value="${frames.length - 1}" step="1"> ` +
    `<output id="${id}-label">${escapeHtml(labels[labels.length - 1] as string)}</output></div>`;
  return chartBlock(id, 'profile', renderSvg(last, look, id), look, slider);
}

/** A chart's tooltip; the nearest walls are named by their range, the intraday series by their time. */
function tooltipOf(kind: keyof typeof TOOLTIPS, series: SeriesData, zone?: string): TooltipSpec {
  const intraday = intradayName(series, zone);
  const extra: Record<string, TooltipSpec['series'][string]> =
    kind === 'levels' ? { [nearestWallName('call', series.rangePct)]: 'price', [nearestWallName('put', series.rangePct)]: 'price' } : {};
  if (intraday !== undefined && kind !== 'term') {
    extra[`spot, ${intraday}`] = 'price';
    if (kind === 'netgex') extra[`net GEX, ${intraday}`] = 'signed';
    if (kind === 'walls') extra[`walls, ${intraday}`] = 'signed';
  }
  return { ...TOOLTIPS[kind], series: { ...TOOLTIPS[kind].series, ...extra } };
}

function pairCharts(report: PairReport, i: number, look: Look, charts: Record<string, ChartSpec>): PairCharts {
  const blocks: string[] = [];
  const kinds: string[] = [];
  const profile = profileBlock(report, i, look, charts);
  if (profile === undefined) blocks.push('<p>no strikes held for the sessions of the window</p>');
  else {
    blocks.push(profile);
    kinds.push('profile');
  }
  const others: [keyof typeof TOOLTIPS, EChartsOption][] = [
    ['levels', levelsOption(report.series, look)],
    ['walls', wallsOption(report.series, look)],
    ['netgex', netGexOption(report.series, look)],
  ];
  if (report.term !== null) others.push(['term', termOption(report.term, look)]);
  for (const [kind, option] of others) {
    const id = `p${i}-${kind}`;
    charts[id] = { width: look.width, height: look.height, tooltip: tooltipOf(kind, report.series, look.timeZone), option };
    blocks.push(chartBlock(id, kind, renderSvg(option, look, id), look));
    kinds.push(kind);
  }
  if (report.term === null)
    blocks.push(
      `<p class="sub">no term structure captured for ${escapeHtml(report.symbol)} (gexwh capture --symbol ${escapeHtml(report.symbol)} captures it)</p>`,
    );
  return { blocks, kinds };
}

export function buildReportHtml(data: ReportData, page: ReportPage): string {
  const { look } = page;
  const charts: Record<string, ChartSpec> = {};
  const sections: string[] = [];
  const kinds: string[][] = [];
  data.pairs.forEach((report, i) => {
    const drawn = pairCharts(report, i, look, charts);
    kinds.push(drawn.kinds);
    sections.push(`<section class="pair" id="${escapeHtml(pairAnchor(report))}">
<h2>${escapeHtml(pairName(report))} <a class="top" href="#contents">contents ↑</a></h2>
${latestTable(report, page.rangePct, look.timeZone)}
${changesBlock(report, look.timeZone)}
${drawn.blocks.join('\n')}
</section>`);
  });
  const palette = paletteOf(look.theme);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; font-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>gexwh report</title>
<style>
${fontFaceRule(PAGE_CHARACTERS)}
body { margin: 0 auto; padding: 16px 24px; max-width: ${look.width + 48}px; background: ${palette.background}; color: ${palette.text}; font: 14px/1.4 Inter, system-ui, sans-serif; }
h1 { font-size: 22px; font-weight: 600; margin: 8px 0 2px; }
h2 { font-size: 17px; font-weight: 600; margin: 20px 0 8px; }
a { color: ${palette.net}; text-decoration: none; }
a:hover { text-decoration: underline; }
h2 a.top { font-size: 12px; font-weight: normal; margin-left: 8px; }
.sub { color: ${palette.subtext}; margin: 0 0 12px; }
nav.toc ol { margin: 0; padding-left: 22px; }
nav.toc li { margin: 2px 0; }
nav.toc .sub, nav.toc .links { margin: 0 0 0 8px; }
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
${contents(data, kinds)}
${sections.join('\n')}
<script>${page.echartsScript}</script>
<script type="application/json" id="gexwh-data">${scriptJson({ charts })}</script>
<script>${clientScript()}</script>
</body>
</html>
`;
}

/**
 * Hydrates the static charts: the same options, drawn by ECharts in the page once the embedded font
 * is ready (ECharts measures text as it lays out), with tooltips formatted by the same functions as
 * the static text (format.ts, their source inlined).
 */
function clientScript(): string {
  return `
(function () {
${[groupThousands, price, usdMillions].map((f) => f.toString()).join('\n')}
${CLIENT_SCRIPT}
})();
`;
}

const CLIENT_SCRIPT = `
var data = JSON.parse(document.getElementById('gexwh-data').textContent);
document.documentElement.className += ' js';
window.gexwhCharts = {};

function valueText(kind, v) {
  if (v === null || v === undefined || v === '-' || isNaN(Number(v))) return '-';
  if (kind === 'usd') return usdMillions(Number(v) * 1e6);
  if (kind === 'signed') return usdMillions(Number(v) * 1e6, true);
  return price(Number(v));
}
function yOf(p) {
  var v = p.value;
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) v = v.value;
  return Array.isArray(v) ? v[1] : v;
}
function row(marker, name, text) {
  return '<div>' + (marker || '') + name + '<b style="float:right;margin-left:18px">' + text + '</b></div>';
}
function axisTooltip(spec) {
  return function (params) {
    var first = params[0];
    var x = Array.isArray(first.value) ? first.value[0] : first.axisValue;
    var html = '<div><b>' + (spec.header === 'strike' ? 'strike ' + price(Number(x)) : first.axisValueLabel) + '</b></div>';
    var values = {};
    params.forEach(function (p) {
      var kind = spec.series[p.seriesName];
      var y = yOf(p);
      values[p.seriesName] = y;
      if (kind === 'regime') { if (y === 1) html += row('', 'regime', p.seriesName.replace(' regime', '')); return; }
      if (kind !== undefined) html += row(p.marker, p.seriesName, valueText(kind, y));
      // Net GEX right under call and put: their sum, the put drawn negative.
      if (spec.net && p.seriesName === spec.net[1] && values[spec.net[0]] != null && y != null) {
        html += row('', 'net GEX', valueText('signed', values[spec.net[0]] + y));
      }
    });
    return html;
  };
}
function itemTooltip(spec) {
  return function (p) {
    var v = p.value;
    if (!Array.isArray(v)) return '<div><b>' + p.name + '</b></div>' + row(p.marker, p.seriesName, valueText(spec.series[p.seriesName], v));
    return '<div><b>' + v[0] + '</b></div>' + row(p.marker, p.seriesName, 'strike ' + price(Number(v[1])) + ' · ' + valueText(spec.series[p.seriesName], v[2]));
  };
}
function withTooltip(option, spec) {
  var copy = Object.assign({}, option);
  copy.tooltip = Object.assign({}, option.tooltip, { trigger: spec.trigger, formatter: spec.trigger === 'item' ? itemTooltip(spec) : axisTooltip(spec) });
  return copy;
}
function draw() {
  Object.keys(data.charts).forEach(function (id) {
    var spec = data.charts[id];
    var el = document.getElementById(id);
    el.innerHTML = '';
    var chart = echarts.init(el, null, { renderer: 'svg', width: spec.width, height: spec.height });
    var frames = spec.frames;
    chart.setOption(withTooltip(frames ? frames[frames.length - 1] : spec.option, spec.tooltip));
    window.gexwhCharts[id] = chart;
    if (!frames) return;
    var slider = document.getElementById(id + '-slider');
    var label = document.getElementById(id + '-label');
    slider.addEventListener('input', function () {
      var i = Number(slider.value);
      chart.setOption(withTooltip(frames[i], spec.tooltip), { notMerge: true });
      label.textContent = spec.labels[i];
    });
  });
  window.gexwhReady = true;
}
var fonts = document.fonts && document.fonts.load ? document.fonts.load('12px Inter') : Promise.resolve();
fonts.then(draw, draw);
`;
