// The report page, built from its data (pure but for the SVG rendering): one HTML file with its
// styles, font, script and data inline, a table of contents first. Each chart is first a static SVG
// (readable with scripts off); when scripts run, ECharts redraws it from the same option with
// tooltips and legend toggles, and the profile gets a slider through the captures of the window. A
// Content-Security-Policy forbids any request, so the page works from file:// with no network.
import type { EChartsOption } from 'echarts';
import { fontFaceRule } from './font.js';
import { captureTime, pairName, price, usdMillions } from './format.js';
import { html, joinHtml, raw, type Html } from './html.js';
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
import { changesBlock, latestTable, orDash, table } from './report-desk.js';
import { summarizeDates } from './date-ranges.js';
import type { ChartSpec, TooltipSpec } from './page/chart-spec.js';
import { pageScript } from './page-script.js';

export interface ReportPage {
  look: Look;
  /** The ECharts browser bundle, inlined. */
  echartsScript: string;
  sessions: number;
  rangePct: number;
}

export type { TooltipSpec };

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

export { escapeHtml } from './html.js';

/** JSON that is safe inside a <script> element. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

function header(data: ReportData, page: ReportPage): Html {
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
      ? html`<p>no run recorded</p>`
      : table(
          ['run', 'command', 'started', 'outcome', 'credits', 'files loaded'],
          data.runs.map((r) => [String(r.runId), r.command, captureTime(r.startedAt, zone), orDash(r.outcome), orDash(r.creditsSpent), orDash(r.filesLoaded)]),
        );
  return html`<header>
<h1>gexwh report</h1>
<p class="sub">${data.pairs.length} pair(s) · the last ${page.sessions} sessions each · profiles within ${page.rangePct}% of spot · GEX in $M per 1% move</p>
<h2 id="coverage">Coverage and gaps</h2>
${coverage}
<h2 id="runs">Last runs</h2>
<p>credits spent by all recorded runs: ${data.creditsSpent}</p>${onRecordLine(data.onRecord)}
${runs}
</header>`;
}

/** Paid files and credits the archive holds on record, not in the tables yet. */
function onRecordLine(record: ReportData['onRecord']): Html {
  if (record === undefined || (record.filesWaiting === 0 && record.creditsNotInRuns === 0)) return html``;
  return html`\n<p>on record in the archive, not in the warehouse yet: ${record.filesWaiting} paid file(s) waiting to load, ${record.creditsNotInRuns} credit(s) of runs without a finished record (counted above); the next gexwh sync or gexwh load loads them for 0 credits</p>`;
}

// The SVG is the renderer's own markup (its text escaped by it), placed as it is.
function chartBlock(id: string, kind: string, svg: string, look: Look, extra: Html = html``): Html {
  return html`<figure class="chart-box"><div class="chart" id="${id}" data-kind="${kind}" style="width:${look.width}px;height:${look.height}px">${raw(svg)}</div>${extra}</figure>`;
}

const KIND_NAMES: Record<string, string> = { profile: 'profile', levels: 'levels', walls: 'walls', netgex: 'net GEX', term: 'term structure' };

function pairAnchor(report: PairReport): string {
  return `${report.exchange}-${report.symbol}`;
}

/** A table of contents: the header's parts, then per pair its latest reading and links to its charts. */
function contents(data: ReportData, kinds: string[][]): Html {
  const rows = data.pairs.map((report, i) => {
    const l = report.latest;
    const reading = l === null ? 'no levels held' : `spot ${price(l.spot)} · regime ${orDash(l.regime)} · net GEX ${usdMillions(l.netGex, true)}`;
    const links = joinHtml(
      (kinds[i] ?? []).map((kind) => html`<a href="#p${i}-${kind}">${KIND_NAMES[kind] ?? kind}</a>`),
      ' · ',
    );
    return html`<li><a href="#${pairAnchor(report)}">${pairName(report)}</a> <span class="sub">${reading}</span> <span class="links">${links}</span></li>`;
  });
  return html`<nav class="toc" id="contents">
<h2>Contents</h2>
<ol>
<li><a href="#coverage">Coverage and gaps</a></li>
<li><a href="#runs">Last runs</a></li>
${joinHtml(rows, '\n')}
</ol>
</nav>`;
}

interface PairCharts {
  blocks: Html[];
  kinds: string[];
}

function profileBlock(report: PairReport, i: number, look: Look, charts: Record<string, ChartSpec>): Html | undefined {
  const frames = report.profiles.map((p) => profileOption(p, { net: false }, look));
  const last = frames[frames.length - 1];
  if (last === undefined) return undefined;
  const id = `p${i}-profile`;
  const labels = report.profiles.map((p) => `capture ${captureTime(p.capturedAt, look.timeZone)} (${momentText(p, look.timeZone)})`);
  charts[id] = { width: look.width, height: look.height, tooltip: TOOLTIPS.profile, frames, labels };
  const label = html`<label for="${id}-slider">profile at the close of</label>`;
  const input = html`<input type="range" id="${id}-slider" min="0" max="${frames.length - 1}" value="${frames.length - 1}" step="1">`;
  const output = html`<output id="${id}-label">${labels[labels.length - 1]}</output>`;
  const slider = html`<div class="frames js-only">${label} ${input} ${output}</div>`;
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
  const blocks: Html[] = [];
  const kinds: string[] = [];
  const profile = profileBlock(report, i, look, charts);
  if (profile === undefined) blocks.push(html`<p>no strikes held for the sessions of the window</p>`);
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
    blocks.push(html`<p class="sub">no term structure captured for ${report.symbol} (gexwh capture --symbol ${report.symbol} captures it)</p>`);
  return { blocks, kinds };
}

export async function buildReportHtml(data: ReportData, page: ReportPage): Promise<string> {
  const { look } = page;
  const charts: Record<string, ChartSpec> = {};
  const sections: Html[] = [];
  const kinds: string[][] = [];
  data.pairs.forEach((report, i) => {
    const drawn = pairCharts(report, i, look, charts);
    kinds.push(drawn.kinds);
    sections.push(html`<section class="pair" id="${pairAnchor(report)}">
<h2>${pairName(report)} <a class="top" href="#contents">contents ↑</a></h2>
${latestTable(report, page.rangePct, look.timeZone)}
${changesBlock(report, look.timeZone)}
${joinHtml(drawn.blocks, '\n')}
</section>`);
  });
  // The style sheet, the ECharts bundle, the data (scriptJson) and the page's script are safe where
  // they go, and are not HTML text: placed as they are.
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; font-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>gexwh report</title>
<style>
${raw(pageStyle(look, await fontFaceRule(PAGE_CHARACTERS)))}</style>
</head>
<body>
${header(data, page)}
${contents(data, kinds)}
${joinHtml(sections, '\n')}
<script>${raw(page.echartsScript)}</script>
<script type="application/json" id="gexwh-data">${raw(scriptJson({ charts }))}</script>
<script>${raw(pageScript())}</script>
</body>
</html>
`.text;
}

/** The page's style sheet (CSS text: the theme's colours and the font's data URL, nothing from the data). */
function pageStyle(look: Look, fontFace: string): string {
  const palette = paletteOf(look.theme);
  return `${fontFace}
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
`;
}
