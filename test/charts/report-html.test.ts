// The report page from fixture data: inline everything, escaped text, one static SVG and one
// option per chart, the profile's frames with their labels, data that cannot close its <script>.
import { describe, expect, it } from 'vitest';
import type { ReportData } from '../../src/charts/report-data.js';
import { buildReportHtml, escapeHtml, scriptJson } from '../../src/charts/report-html.js';
import { LOOK, profileFixture, seriesFixture, termFixture } from './fixtures.js';

function reportFixture(): ReportData {
  const series = { ...seriesFixture(), exchange: 'deribit', symbol: 'BTC' };
  const { askedAt: _asked, ...close } = profileFixture();
  const early = { ...close, capturedAt: '2026-03-09T23:45:00Z', sessionDate: '2026-03-09', closeOf: '2026-03-09' };
  const late = { ...close, closeOf: '2026-03-10' };
  return {
    coverage: [
      {
        exchange: 'deribit',
        symbol: 'BTC',
        remoteFirst: '2026-03-02T00:00:00Z',
        remoteLast: '2026-03-10T23:45:00Z',
        remoteSessions: 9,
        heldFirst: '2026-03-02',
        heldLast: '2026-03-06',
        heldSessions: 5,
        missing: ['2026-03-07', '2026-03-08'],
      },
    ],
    runs: [{ runId: 3, command: 'sync', startedAt: '2026-03-11T00:30:00Z', outcome: 'ok', creditsSpent: 12, filesLoaded: 12 }],
    creditsSpent: 40,
    pairs: [{ exchange: 'deribit', symbol: 'BTC', latest: null, series, profiles: [early, late], term: null }],
  };
}

const PAGE = { look: LOOK, echartsScript: 'window.echarts = {};', sessions: 30, rangePct: 10 };

type Chart = { frames?: unknown[]; labels?: string[]; option?: unknown; tooltip: { trigger: string } };
function chartData(html: string): { charts: Record<string, Chart> } {
  return JSON.parse(/<script type="application\/json" id="gexwh-data">(.*?)<\/script>/s.exec(html)![1]!) as { charts: Record<string, Chart> };
}

describe('buildReportHtml', () => {
  it('holds the header, one static SVG per chart and the data to redraw them', async () => {
    const html = await buildReportHtml(reportFixture(), PAGE);
    expect(html).toContain(
      '<td>deribit BTC</td><td>9</td><td>2026-03-02 00:00 UTC – 2026-03-10 23:45 UTC</td><td>5</td><td>2026-03-02 – 2026-03-06</td><td>2 session(s): 2026-03-07 – 2026-03-08 (2)</td>',
    );
    expect(html).toContain('credits spent by all recorded runs: 40');
    expect(html.match(/<svg /g)).toHaveLength(4);
    expect([...html.matchAll(/<div class="chart" id="([^"]+)"/g)].map((m) => m[1])).toEqual(['p0-profile', 'p0-levels', 'p0-walls', 'p0-netgex']);
    const data = chartData(html);
    expect(Object.keys(data.charts)).toEqual(['p0-profile', 'p0-levels', 'p0-walls', 'p0-netgex']);
    expect(data.charts['p0-profile']!.frames).toHaveLength(2);
    expect(data.charts['p0-profile']!.labels).toEqual([
      'capture 2026-03-09 23:45 UTC (close of session 2026-03-09)',
      'capture 2026-03-10 23:45 UTC (close of session 2026-03-10)',
    ]);
    expect(html).toContain('max="1" value="1"');
    // The static profile is the latest frame; classes are prefixed per chart so they never clash.
    expect(html).toMatch(/<div class="chart" id="p0-profile"[^>]*><svg [\s\S]*capture 2026-03-10 23:45 UTC \(close of session 2026-03-10\)/);
    expect(html).toMatch(/class="p0-levels-0"/);
    expect(html).toContain(`default-src 'none'`);
    expect(html).toContain('<script>window.echarts = {};</script>');
  });

  it('each frame of the slider says which close it draws, never "latest capture"', async () => {
    const frames = chartData(await buildReportHtml(reportFixture(), PAGE)).charts['p0-profile']!.frames as { title: { subtext: string } }[];
    expect(frames.map((f) => /\(([^)]*)\)/.exec(f.title.subtext)![1])).toEqual(['close of session 2026-03-09', 'close of session 2026-03-10']);
  });

  it('opens with a table of contents linking each pair and its charts', async () => {
    const data = reportFixture();
    data.pairs[0]!.latest = {
      capturedAt: '2026-03-10T23:45:00Z',
      type: 'close',
      spot: 78_308.68,
      flip: 78_070.77,
      regime: 'positive',
      netGex: 962_000,
      callWall: 76_000,
      putWall: 77_000,
      spotDelta1d: null,
      spotDelta7d: null,
    };
    const html = await buildReportHtml(data, PAGE);
    const toc = /<nav class="toc" id="contents">([\s\S]*?)<\/nav>/.exec(html)![1]!;
    expect([...toc.matchAll(/href="#([^"]+)"/g)].map((m) => m[1])).toEqual([
      'coverage',
      'runs',
      'deribit-BTC',
      'p0-profile',
      'p0-levels',
      'p0-walls',
      'p0-netgex',
    ]);
    expect(toc).toContain('spot 78,308.68 · regime positive · net GEX +$0.962M');
    for (const id of ['coverage', 'runs', 'deribit-BTC']) expect(html).toContain(`id="${id}"`);
  });

  it('draws the term structure where it was captured, and says how to capture it where not', async () => {
    const data = reportFixture();
    expect(await buildReportHtml(data, PAGE)).toContain('no term structure captured for BTC (gexwh capture --symbol BTC captures it)');
    data.pairs[0]!.term = termFixture();
    const html = await buildReportHtml(data, PAGE);
    expect(Object.keys(chartData(html).charts)).toEqual(['p0-profile', 'p0-levels', 'p0-walls', 'p0-netgex', 'p0-term']);
    expect(html).toContain('combined BTC · GEX and open interest by expiration');
    expect(html).toContain('<a href="#p0-term">term structure</a>');
  });

  it('gives each chart the tooltip formats of its series, and the page its font', async () => {
    const html = await buildReportHtml(reportFixture(), PAGE);
    const charts = chartData(html).charts;
    expect(charts['p0-profile']!.tooltip).toEqual({
      trigger: 'axis',
      header: 'strike',
      series: { 'call GEX': 'usd', 'put GEX': 'usd', 'net GEX': 'signed', 'cumulative net GEX': 'signed' },
      net: ['call GEX', 'put GEX'],
    });
    expect(charts['p0-walls']!.tooltip.trigger).toBe('item');
    // The page's script formats with the same functions as the static text.
    expect(html).toContain('function usdMillions(value, signed = false)');
    expect(html).toMatch(/@font-face\{font-family:"Inter";src:url\(data:font\/ttf;base64,[A-Za-z0-9+/=]+\)/);
    expect(html).toContain('font-src data:');
  });

  it('escapes names from the warehouse and keeps data from closing its script', async () => {
    const data = reportFixture();
    data.pairs[0]!.symbol = '<b>X</b>';
    data.pairs[0]!.series = { ...data.pairs[0]!.series, symbol: '</script><script>alert(1)</script>' };
    const html = await buildReportHtml(data, PAGE);
    expect(html).toContain('<h2>deribit &lt;b&gt;X&lt;/b&gt; <a class="top" href="#contents">');
    expect(html).toContain('<a href="#deribit-&lt;b&gt;X&lt;/b&gt;">deribit &lt;b&gt;X&lt;/b&gt;</a>');
    expect(html).not.toContain('</script><script>alert(1)');
    expect(escapeHtml(`a&"'`)).toBe('a&amp;&quot;&#39;');
    expect(scriptJson({ s: '</script>' })).toBe('{"s":"\\u003c/script>"}');
    expect(JSON.parse(scriptJson({ s: '</script>' }))).toEqual({ s: '</script>' });
  });

  it('says so when no strikes are held for the window', async () => {
    const data = reportFixture();
    data.pairs[0]!.profiles = [];
    const html = await buildReportHtml(data, PAGE);
    expect(html).toContain('no strikes held for the sessions of the window');
    expect(html.match(/<svg /g)).toHaveLength(3);
  });
});
