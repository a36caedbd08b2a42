// gexwh report through the built CLI, then the page in a real headless Chromium from file://: no
// console error, no request leaving the file, every chart drawn with its series and points, a
// tooltip with the right value on hover, the slider moving the profile, the static SVGs without
// scripts. Screenshots go to test-artifacts/ (gitignored).
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumOrSkip } from '../helpers/browser.js';
import { runCli } from '../helpers/cli.js';
import { startBench, type Bench } from '../helpers/sync.js';

// The callbacks of page.evaluate run in the page; the test project is typed for Node (no DOM lib),
// so the page's globals are declared loosely here, for this file only.
declare const window: any;
declare const document: any;
declare const getComputedStyle: (el: unknown) => { display: string };
type HTMLElement = { style: { zIndex: string; display: string }; textContent: string | null };
type HTMLInputElement = { value: string; dispatchEvent(e: unknown): void };
declare const Event: new (type: string) => unknown;

const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts');
const CALL = '#2da44e';
const PUT = '#cf222e';
const SPOT = '#1f2328';

let bench: Bench;
let reportPath: string;

beforeAll(async () => {
  bench = await startBench({ days: 6 });
  await bench.sync({ exchange: 'deribit,tradfi', symbol: 'BTC,SPY' });
  reportPath = join(bench.dir, 'out', 'report.html');
  const run = await runCli(['report', '--db', bench.dbPath, '--out', reportPath, '--json']);
  expect(run.code, run.stderr).toBe(0);
  expect(JSON.parse(run.stdout)).toMatchObject({ pairs: 2, charts: 6 });
}, 180_000);
afterAll(() => bench.close());

describe('gexwh report', () => {
  it('is one file with everything inline, the same bytes on a second run', async () => {
    const html = readFileSync(reportPath, 'utf8');
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|<img[^>]+src="http/);
    expect(html).toContain(`default-src 'none'`);
    expect(html.match(/<svg /g)).toHaveLength(6);
    expect(html).toContain('<h2>deribit BTC</h2>');
    expect(html).toContain('<h2>tradfi SPY</h2>');
    const again = join(bench.dir, 'out', 'again.html');
    expect((await runCli(['report', '--db', bench.dbPath, '--out', again])).code).toBe(0);
    expect(readFileSync(again, 'utf8')).toBe(html);
  }, 90_000);

  it('bad input is exit 2', async () => {
    const ext = await runCli(['report', '--db', bench.dbPath, '--out', join(bench.dir, 'r.pdf')]);
    expect(ext.code).toBe(2);
    expect(ext.stderr).toMatch(/--out .*r.pdf: the report is HTML; name the file .html/);
    const name = await runCli(['report', '--db', bench.dbPath, '--out', join(bench.dir, 'r.html'), '--symbol', 'ETX']);
    expect(name.code).toBe(2);
    expect(name.stderr).toMatch(/ETX: no history in the warehouse/);
  }, 60_000);
});

const chromium = chromiumOrSkip('report browser test');

describe.skipIf(chromium === undefined)('the report in headless Chromium', () => {
  let browser: Browser;
  let page: Page;
  const consoleErrors: string[] = [];
  const outside: string[] = [];

  beforeAll(async () => {
    browser = await puppeteer.launch({ executablePath: chromium!, args: ['--no-sandbox', '--disable-gpu'] });
    page = await browser.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warn') consoleErrors.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => consoleErrors.push(`pageerror: ${String(e)}`));
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      const url = request.url();
      if (url === pathToFileURL(reportPath).href) return void request.continue();
      outside.push(url);
      void request.abort();
    });
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.setViewport({ width: 1100, height: 900 });
    await page.goto(pathToFileURL(reportPath).href, { waitUntil: 'load' });
  }, 60_000);
  afterAll(() => browser?.close());

  it('loads from file:// with no console error and no other request', () => {
    expect(consoleErrors).toEqual([]);
    expect(outside).toEqual([]);
  });

  it('draws every chart with its series and one mark per point', async () => {
    const drawn = await page.evaluate(() => {
      const charts = (window as unknown as { gexwhCharts: Record<string, { getOption(): { series: { name: string; data: unknown[] }[] } }> }).gexwhCharts;
      return Object.keys(charts).map((id) => {
        const fills: Record<string, number> = {};
        document.getElementById(id)!.querySelectorAll('svg path').forEach((p: { getAttribute(name: string): string | null }) => {
          const fill = p.getAttribute('fill') ?? '';
          fills[fill] = (fills[fill] ?? 0) + 1;
        });
        // A point is drawn when it has a value: a bare number, [x, y] or { value: [x, y, ...] } with y set.
        const drawnPoint = (d: unknown) => {
          const value = d !== null && typeof d === 'object' && 'value' in d ? (d as { value: unknown }).value : d;
          return Array.isArray(value) ? value[1] !== null && value[1] !== undefined : value !== null && value !== undefined;
        };
        return { id, series: charts[id]!.getOption().series.map((s) => ({ name: s.name, points: s.data.filter(drawnPoint).length })), fills };
      });
    });
    expect(drawn.map((c) => c.id)).toEqual(['p0-profile', 'p0-levels', 'p0-walls', 'p1-profile', 'p1-levels', 'p1-walls']);
    for (const chart of drawn) {
      const points = (name: string) => chart.series.find((s) => s.name === name)!.points;
      if (chart.id.endsWith('profile')) {
        expect(chart.series.map((s) => s.name)).toEqual(['call GEX', 'put GEX']);
        expect(points('call GEX')).toBeGreaterThan(3);
        // One bar per strike and series, plus the series' legend icon.
        expect(chart.fills[CALL]).toBe(points('call GEX') + 1);
        expect(chart.fills[PUT]).toBe(points('put GEX') + 1);
      } else if (chart.id.endsWith('levels')) {
        expect(chart.series.map((s) => s.name)).toEqual(['spot (close)', 'flip', 'call wall', 'put wall']);
        expect(points('spot (close)')).toBeGreaterThanOrEqual(4);
        // A marker at each session close, plus the legend icon.
        expect(chart.fills[SPOT]).toBe(points('spot (close)') + 1);
      } else {
        expect(chart.series.map((s) => s.name)).toEqual(['spot (close)', 'largest +GEX', '2nd +GEX', 'largest -GEX', '2nd -GEX']);
        expect(chart.fills[CALL]).toBe(points('largest +GEX') + points('2nd +GEX') + 2);
        expect(chart.fills[PUT]).toBe(points('largest -GEX') + points('2nd -GEX') + 2);
      }
    }
  }, 30_000);

  it('hovering a bar shows a tooltip with its strike and value', async () => {
    const target = await page.evaluate(() => {
      const chart = (window as unknown as { gexwhCharts: Record<string, { getOption(): { series: { data: [number, number][] }[] }; convertToPixel(f: object, v: number[]): number[] }> }).gexwhCharts['p0-profile']!;
      const calls = chart.getOption().series[0]!.data;
      const [strike, value] = calls.reduce((a, b) => (b[1] > a[1] ? b : a));
      const [x, y] = chart.convertToPixel({ seriesIndex: 0 }, [strike, value / 2]);
      const box = document.getElementById('p0-profile')!.getBoundingClientRect();
      return { strike, value, x: box.left + x!, y: box.top + y! };
    });
    await page.mouse.move(target.x, target.y);
    const tooltip = await page.waitForFunction(
      // ECharts' tooltip: the absolutely positioned div it adds to the chart's container.
      () => [...(document.querySelectorAll('#p0-profile div') as HTMLElement[])].filter((d) => d.style.zIndex === '9999999' && d.style.display !== 'none').map((d) => d.textContent ?? '').find((t) => t.includes('call GEX')),
      { timeout: 10_000 },
    );
    const text = (await tooltip.jsonValue()) as string;
    expect(text).toContain(target.strike.toLocaleString('en-US'));
    expect(text).toContain(`call GEX${target.value}`);
    await (await page.$('#p0-profile'))!.screenshot({ path: join(ARTIFACTS, 'report-profile-tooltip.png') });
  }, 30_000);

  it('the slider moves the profile to an earlier close', async () => {
    const before = await page.evaluate(() => document.getElementById('p0-profile-label')!.textContent);
    await page.evaluate(() => {
      const slider = document.getElementById('p0-profile-slider') as HTMLInputElement;
      slider.value = '0';
      slider.dispatchEvent(new Event('input'));
    });
    const after = await page.evaluate(() => ({
      label: document.getElementById('p0-profile-label')!.textContent!,
      subtitle: (window as unknown as { gexwhCharts: Record<string, { getOption(): { title: { subtext: string }[] } }> }).gexwhCharts['p0-profile']!.getOption().title[0]!.subtext,
      svgText: document.querySelector('#p0-profile svg')!.textContent!,
    }));
    expect(after.label).not.toBe(before);
    const capture = /capture (\S+ \S+ UTC)/.exec(after.label)![1]!;
    expect(after.subtitle).toContain(`capture ${capture}`);
    expect(after.svgText).toContain(`capture ${capture}`);
    await page.screenshot({ path: join(ARTIFACTS, 'report-page.png'), fullPage: true });
  }, 30_000);

  it('without scripts the static SVG charts are still there', async () => {
    const plain = await browser.newPage();
    await plain.setJavaScriptEnabled(false);
    await plain.goto(pathToFileURL(reportPath).href, { waitUntil: 'load' });
    const charts = await plain.evaluate(() => [...document.querySelectorAll('.chart')].map((c) => (c.querySelector('svg') ? c.querySelector('svg')!.getAttribute('width') : null)));
    expect(charts).toEqual(['1000', '1000', '1000', '1000', '1000', '1000']);
    const sliderShown = await plain.evaluate(() => getComputedStyle(document.querySelector('.frames')!).display);
    expect(sliderShown).toBe('none');
    await plain.close();
  }, 30_000);
});
