// An SVG chart opened in headless Chromium, on a machine without Inter (Debian's Chromium with DejaVu
// only), draws its text like the PNG: the font travels in the file. The screenshot is compared with
// resvg's PNG by pixelmatch; the same SVG without its font is the yardstick of a fallback font.
import { join } from 'node:path';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeChart } from '../../src/charts/draw.js';
import { profileOption } from '../../src/charts/profile.js';
import { renderSvg } from '../../src/charts/render.js';
import { chromiumOrSkip, openSvgBrowser, type SvgBrowser } from '../helpers/browser.js';
import { LOOK, profileFixture } from './fixtures.js';

const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts');
const chromium = chromiumOrSkip('SVG font browser test');

describe.skipIf(chromium === undefined)('an SVG chart in a browser without Inter', () => {
  let browser: SvgBrowser;

  beforeAll(async () => {
    browser = await openSvgBrowser(chromium!, { width: LOOK.width, height: LOOK.height });
  }, 60_000);
  afterAll(async () => browser?.close());

  const screenshot = (name: string, svg: string) => browser.screenshot(name, svg, ARTIFACTS);

  function differing(a: PNG, b: PNG): number {
    return pixelmatch(a.data, b.data, undefined, a.width, a.height, { threshold: 0.3 });
  }

  it('draws its text in the embedded font: the screenshot matches the PNG far better than a fallback font does', async () => {
    const option = profileOption(profileFixture(), { net: false }, LOOK);
    const png = PNG.sync.read(await encodeChart(option, LOOK, 'png'));
    const embedded = differing(await screenshot('embedded-font', (await encodeChart(option, LOOK, 'svg')).toString('utf8')), png);
    const fallback = differing(await screenshot('no-font', renderSvg(option, LOOK)), png);
    console.log(`pixels differing from the PNG: ${embedded} with the embedded font, ${fallback} without it`);
    expect(embedded).toBeLessThan(fallback / 4);
  }, 60_000);
});
