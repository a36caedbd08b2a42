// An SVG chart opened in headless Chromium, on a machine without Inter (Debian's Chromium with DejaVu
// only), draws its text like the PNG: the font travels in the file. The screenshot is compared with
// resvg's PNG by pixelmatch; the same SVG without its font is the yardstick of a fallback font.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import puppeteer, { type Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeChart } from '../../src/charts/draw.js';
import { profileOption } from '../../src/charts/profile.js';
import { renderSvg } from '../../src/charts/render.js';
import { chromiumOrSkip } from '../helpers/browser.js';
import { LOOK, profileFixture } from './fixtures.js';

const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts');
const chromium = chromiumOrSkip('SVG font browser test');

describe.skipIf(chromium === undefined)('an SVG chart in a browser without Inter', () => {
  let browser: Browser;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gexwh-svg-'));
    browser = await puppeteer.launch({ executablePath: chromium!, args: ['--no-sandbox', '--disable-gpu', '--font-render-hinting=none'] });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function screenshot(name: string, svg: string): Promise<PNG> {
    const file = join(dir, `${name}.svg`);
    writeFileSync(file, svg);
    const page = await browser.newPage();
    try {
      await page.setViewport({ width: LOOK.width, height: LOOK.height });
      await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
      await page.evaluate('document.fonts.ready');
      mkdirSync(ARTIFACTS, { recursive: true });
      const shot = await page.screenshot({ path: join(ARTIFACTS, `svg-${name}.png`), clip: { x: 0, y: 0, width: LOOK.width, height: LOOK.height } });
      return PNG.sync.read(Buffer.from(shot));
    } finally {
      await page.close();
    }
  }

  function differing(a: PNG, b: PNG): number {
    return pixelmatch(a.data, b.data, undefined, a.width, a.height, { threshold: 0.3 });
  }

  it('draws its text in the embedded font: the screenshot matches the PNG far better than a fallback font does', async () => {
    const option = profileOption(profileFixture(), { net: false }, LOOK);
    const png = PNG.sync.read(encodeChart(option, LOOK, 'png'));
    const embedded = differing(await screenshot('embedded-font', encodeChart(option, LOOK, 'svg').toString('utf8')), png);
    const fallback = differing(await screenshot('no-font', renderSvg(option, LOOK)), png);
    console.log(`pixels differing from the PNG: ${embedded} with the embedded font, ${fallback} without it`);
    expect(embedded).toBeLessThan(fallback / 4);
  }, 60_000);
});
