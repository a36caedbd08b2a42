// gexwh report through the built CLI (the capture before it and the refusals run the same code in
// this process: they check only exit codes and output; the rerun is the built CLI's too, since the
// page carries its formatters' source as compiled), then the page in a real headless Chromium from
// file://: no console error, no request leaving the file, a table of contents whose links all land, every chart
// drawn with its series and points, the term structure where it was captured, a tooltip with the
// strike, call, put and net GEX formatted as the symbol quotes them, the slider moving the profile
// and its subtitle, the page's text in the embedded font, the static SVGs without scripts. A
// screenshot of each section goes to test-artifacts/ (gitignored), to look at.
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PNG } from 'pngjs';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { price, usdMillions } from '../../src/charts/format.js';
import { chromiumOrSkip } from '../helpers/browser.js';
import { runCli, runCliInProcess } from '../helpers/cli.js';
import { startBench, type Bench } from '../helpers/sync.js';

// The callbacks of page.evaluate run in the page; the test project is typed for Node (no DOM lib),
// so the page's globals are declared loosely here, for this file only.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the browser's, not this project's types
declare const window: any;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the browser's, not this project's types
declare const document: any;
declare const getComputedStyle: (el: unknown) => { display: string };
type HTMLElement = { style: { zIndex: string; display: string }; textContent: string | null };
type HTMLInputElement = { value: string; dispatchEvent(e: unknown): void; getAttribute(name: string): string | null };
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
  // BTC's term structure is captured (stored as combined BTC, as the API resolves it); SPY's is not.
  const env = { GEX_BASE_URL: bench.emulator.baseUrl, GEX_API_KEY: bench.emulator.keys.pro };
  const capture = await runCliInProcess(['capture', '--db', bench.dbPath, '--archive', bench.archive, '--symbol', 'BTC'], { env });
  expect(capture.code, capture.stderr).toBe(0);
  reportPath = join(bench.dir, 'out', 'report.html');
  const run = await runCli(['report', '--db', bench.dbPath, '--out', reportPath, '--json']);
  expect(run.code, run.stderr).toBe(0);
  // Per pair: profile, levels, walls, net GEX; BTC also its term structure.
  expect(JSON.parse(run.stdout)).toMatchObject({ pairs: 2, charts: 9 });
}, 180_000);
afterAll(() => bench.close());

describe('gexwh report', () => {
  it('is one file with everything inline, the same bytes on a second run', async () => {
    const html = readFileSync(reportPath, 'utf8');
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|<img[^>]+src="http/);
    expect(html).toContain(`default-src 'none'`);
    expect(html.match(/<svg /g)).toHaveLength(9);
    expect(html).toContain('<h2>deribit BTC <a class="top" href="#contents">');
    expect(html).toContain('<h2>tradfi SPY <a class="top" href="#contents">');
    expect(html).toContain(`font-src data:`);
    const again = join(bench.dir, 'out', 'again.html');
    expect((await runCli(['report', '--db', bench.dbPath, '--out', again])).code).toBe(0);
    expect(readFileSync(again, 'utf8')).toBe(html);
  }, 90_000);

  it('bad input is exit 2', async () => {
    const ext = await runCliInProcess(['report', '--db', bench.dbPath, '--out', join(bench.dir, 'r.pdf')]);
    expect(ext.code).toBe(2);
    expect(ext.stderr).toMatch(/--out .*r.pdf: the report is HTML; name the file .html or .htm/);
    const name = await runCliInProcess(['report', '--db', bench.dbPath, '--out', join(bench.dir, 'r.html'), '--symbol', 'ETX']);
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
      // The page itself, and the font it carries as a data: URL (no network).
      if (url === pathToFileURL(reportPath).href || url.startsWith('data:font/ttf;base64,')) return void request.continue();
      outside.push(url);
      void request.abort();
    });
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.setViewport({ width: 1100, height: 900 });
    await page.goto(pathToFileURL(reportPath).href, { waitUntil: 'load' });
    // The page draws its charts once the embedded font is ready.
    await page.waitForFunction('window.gexwhReady === true', { timeout: 20_000 });
  }, 60_000);
  afterAll(() => browser?.close());

  it('loads from file:// with no console error and no other request', () => {
    expect(consoleErrors).toEqual([]);
    expect(outside).toEqual([]);
  });

  it('draws every chart with its series and one mark per point', async () => {
    const regimeSessions = Object.fromEntries(
      (
        await bench.query<{ pair: string; n: number }>(`SELECT exchange || ' ' || symbol AS pair, count(regime)::INTEGER AS n FROM levels_close GROUP BY ALL`)
      ).map((r) => [r.pair, r.n]),
    );
    const drawn = await page.evaluate(() => {
      const charts = (window as unknown as { gexwhCharts: Record<string, { getOption(): { series: { name: string; data: unknown[] }[] } }> }).gexwhCharts;
      return Object.keys(charts).map((id) => {
        const fills: Record<string, number> = {};
        document
          .getElementById(id)!
          .querySelectorAll('svg path')
          .forEach((p: { getAttribute(name: string): string | null }) => {
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
    expect(drawn.map((c) => c.id)).toEqual(['p0-profile', 'p0-levels', 'p0-walls', 'p0-netgex', 'p0-term', 'p1-profile', 'p1-levels', 'p1-walls', 'p1-netgex']);
    for (const chart of drawn) {
      const points = (name: string) => chart.series.find((s) => s.name === name)!.points;
      const kind = chart.id.replace(/^p\d-/, '');
      if (kind === 'profile') {
        expect(chart.series.map((s) => s.name)).toEqual(['call GEX', 'put GEX', 'cumulative net GEX']);
        expect(points('call GEX')).toBeGreaterThan(3);
        expect(points('cumulative net GEX')).toBe(points('call GEX'));
        // One bar per strike and series, plus the series' legend icon.
        expect(chart.fills[CALL]).toBe(points('call GEX') + 1);
        expect(chart.fills[PUT]).toBe(points('put GEX') + 1);
      } else if (kind === 'levels') {
        expect(chart.series.map((s) => s.name)).toEqual([
          'spot (close)',
          'flip',
          'API call wall (p1)',
          'API put wall (n1)',
          'nearest call wall (±10%)',
          'nearest put wall (±10%)',
          'positive regime',
          'negative regime',
        ]);
        expect(points('spot (close)')).toBeGreaterThanOrEqual(4);
        // A marker at each session close, plus the legend icon.
        expect(chart.fills[SPOT]).toBe(points('spot (close)') + 1);
        // Every session with a regime is shaded by its band.
        expect(points('positive regime') + points('negative regime')).toBe(regimeSessions[chart.id.startsWith('p0') ? 'deribit BTC' : 'tradfi SPY']);
      } else if (kind === 'walls') {
        expect(chart.series.map((s) => s.name)).toEqual(['spot (close)', 'largest +GEX', '2nd +GEX', 'largest -GEX', '2nd -GEX']);
        expect(chart.fills[CALL]).toBe(points('largest +GEX') + points('2nd +GEX') + 2);
        expect(chart.fills[PUT]).toBe(points('largest -GEX') + points('2nd -GEX') + 2);
      } else if (kind === 'netgex') {
        expect(chart.series.map((s) => s.name)).toEqual(['net GEX', 'spot (close)']);
        // A bar per session, green or red by its sign, plus the legend icon.
        expect((chart.fills[CALL] ?? 0) + (chart.fills[PUT] ?? 0)).toBe(points('net GEX') + 1);
      } else {
        expect(chart.series.map((s) => s.name)).toEqual(['net GEX', 'open interest']);
        expect(points('net GEX')).toBeGreaterThan(1);
      }
    }
  }, 30_000);

  it('opens with a table of contents whose every link lands on the page', async () => {
    const toc = await page.evaluate(() => {
      const links = [...document.querySelectorAll('nav#contents a')].map((a: { getAttribute(n: string): string }) => a.getAttribute('href'));
      return {
        links,
        missing: links.filter((href: string) => document.getElementById(href.slice(1)) === null),
        text: document.querySelector('nav#contents')!.textContent,
      };
    });
    expect(toc.links).toEqual(
      expect.arrayContaining([
        '#coverage',
        '#runs',
        '#deribit-BTC',
        '#p0-profile',
        '#p0-levels',
        '#p0-walls',
        '#p0-netgex',
        '#p0-term',
        '#tradfi-SPY',
        '#p1-profile',
        '#p1-netgex',
      ]),
    );
    expect(toc.links).not.toContain('#p1-term');
    expect(toc.missing).toEqual([]);
    expect(toc.text).toMatch(/deribit BTC\s+spot [\d,.]+ · regime (positive|negative|-) · net GEX [+-]\$[\d,.]+M/);
  });

  it('draws the text in the embedded Inter (the machine has none)', async () => {
    const fonts = await page.evaluate(() => [...document.fonts].map((f: { family: string; status: string }) => `${f.family.replace(/"/g, '')}:${f.status}`));
    expect(fonts).toContain('Inter:loaded');
  });

  it('hovering a bar shows a tooltip with the strike, call, put and net GEX, formatted as the symbol quotes them', async () => {
    await page.evaluate(() => document.getElementById('p0-profile')!.scrollIntoView());
    const target = await page.evaluate(() => {
      const chart = (
        window as unknown as {
          gexwhCharts: Record<string, { getOption(): { series: { data: [number, number][] }[] }; convertToPixel(f: object, v: number[]): number[] }>;
        }
      ).gexwhCharts['p0-profile']!;
      const [calls, puts] = chart.getOption().series as { data: [number, number][] }[];
      const i = calls!.data.reduce((best, b, k) => (b[1] > calls!.data[best]![1] ? k : best), 0);
      const [strike, value] = calls!.data[i]!;
      const [x, y] = chart.convertToPixel({ seriesIndex: 0 }, [strike, value / 2]);
      const box = document.getElementById('p0-profile')!.getBoundingClientRect();
      return { strike, call: value, put: puts!.data[i]![1], x: box.left + x!, y: box.top + y! };
    });
    await page.mouse.move(target.x, target.y);
    const tooltip = await page.waitForFunction(
      // ECharts' tooltip: the absolutely positioned div it adds to the chart's container.
      () =>
        [...(document.querySelectorAll('#p0-profile div') as HTMLElement[])]
          .filter((d) => d.style.zIndex === '9999999' && d.style.display !== 'none')
          .map((d) => d.textContent ?? '')
          .find((t) => t.includes('call GEX')),
      { timeout: 10_000 },
    );
    const text = (await tooltip.jsonValue()) as string;
    expect(text).toContain(`strike ${price(target.strike)}`);
    expect(text).toContain(`call GEX${usdMillions(target.call * 1e6)}`);
    expect(text).toContain(`put GEX${usdMillions(target.put * 1e6)}`);
    expect(text).toContain(`net GEX${usdMillions((target.call + target.put) * 1e6, true)}`);
    expect(text).toMatch(/cumulative net GEX[+-]\$[\d,.]+M/);
    expect(text).not.toMatch(/\d\.00\b/);
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
      subtitle: (window as unknown as { gexwhCharts: Record<string, { getOption(): { title: { subtext: string }[] } }> }).gexwhCharts['p0-profile']!.getOption()
        .title[0]!.subtext,
      svgText: document.querySelector('#p0-profile svg')!.textContent!,
    }));
    expect(after.label).not.toBe(before);
    const [, capture, session] = /capture (\S+ \S+ UTC) \(close of session (\S+)\)/.exec(after.label)!;
    expect(after.subtitle).toContain(`capture ${capture} (close of session ${session})`);
    expect(after.subtitle).not.toContain('latest capture');
    expect(after.svgText).toContain(`capture ${capture} (close of session ${session})`);
  }, 30_000);

  it('shows every section: a screenshot of each, not blank', async () => {
    await page.evaluate(() => {
      const slider = document.getElementById('p0-profile-slider') as HTMLInputElement;
      slider.value = slider.getAttribute('max')!;
      slider.dispatchEvent(new Event('input'));
    });
    const parts = await page.$$('header, nav#contents, section.pair');
    const names: string[] = [];
    for (const part of parts) {
      const name = await part.evaluate((el: { tagName: string; id: string }) => el.id || el.tagName.toLowerCase());
      const shot = PNG.sync.read(Buffer.from(await part.screenshot({ path: join(ARTIFACTS, `report-${name}.png`) })));
      const colours = new Set<number>();
      for (let i = 0; i < shot.data.length; i += 16) colours.add((shot.data[i]! << 16) | (shot.data[i + 1]! << 8) | shot.data[i + 2]!);
      expect(colours.size, `${name}: a picture, not a blank box`).toBeGreaterThan(20);
      names.push(name);
    }
    expect(names).toEqual(['header', 'contents', 'deribit-BTC', 'tradfi-SPY']);
  }, 60_000);

  it('without scripts the static SVG charts are still there', async () => {
    const plain = await browser.newPage();
    await plain.setJavaScriptEnabled(false);
    await plain.goto(pathToFileURL(reportPath).href, { waitUntil: 'load' });
    const charts = await plain.evaluate(() =>
      [...document.querySelectorAll('.chart')].map((c) => (c.querySelector('svg') ? c.querySelector('svg')!.getAttribute('width') : null)),
    );
    expect(charts).toEqual(Array.from({ length: 9 }, () => '1000'));
    const sliderShown = await plain.evaluate(() => getComputedStyle(document.querySelector('.frames')!).display);
    expect(sliderShown).toBe('none');
    await plain.close();
  }, 30_000);
});
