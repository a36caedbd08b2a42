// The intraday chart as a trader opens it: its SVG in headless Chromium draws what its PNG draws
// (shading by regime, the hollow intraday markers and the filled close, the text in the embedded
// font). The screenshot is compared with resvg's PNG by pixelmatch; the same session with spot drawn
// 300 higher is the yardstick of a picture that is wrong.
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeChart } from '../../src/charts/draw.js';
import { sessionOption } from '../../src/charts/session.js';
import type { CaptureRow, SessionCaptures } from '../../src/charts/types.js';
import { chromiumOrSkip, openSvgBrowser, type SvgBrowser } from '../helpers/browser.js';
import { LOOK } from './fixtures.js';

const chromium = chromiumOrSkip('intraday chart browser test');

/** 48 half-hourly captures: spot drifts across a falling flip (positive, then negative), the last one the close. */
function sessionFixture(spotShift = 0): SessionCaptures {
  const captures: CaptureRow[] = Array.from({ length: 48 }, (_, i) => {
    const flip = 83_600 - 10 * i;
    const regime = 84_000 + 900 * Math.sin(i / 7) - 40 * i > flip ? 'positive' : 'negative';
    const spot = 84_000 + 900 * Math.sin(i / 7) - 40 * i + spotShift;
    return {
      capturedAt: new Date(Date.UTC(2026, 2, 15, 0, 30 * i)).toISOString(),
      type: i === 47 ? 'close' : 'intraday',
      spot,
      flip,
      regime,
      netGex: (spot - flip) * 1e3,
      callWall: 90_000,
      putWall: 80_000,
      source: 'file',
      nearestCallWall: 85_000,
      nearestPutWall: 82_000,
    };
  });
  return { exchange: 'deribit', symbol: 'BTC', sessionDate: '2026-03-15', rangePct: 10, captures };
}

describe.skipIf(chromium === undefined)('the intraday chart in a browser', () => {
  let browser: SvgBrowser;

  beforeAll(async () => {
    browser = await openSvgBrowser(chromium!, { width: LOOK.width, height: LOOK.height });
  }, 60_000);
  afterAll(async () => browser?.close());

  function differing(a: PNG, b: PNG): number {
    return pixelmatch(a.data, b.data, undefined, a.width, a.height, { threshold: 0.3 });
  }

  it('draws what the PNG draws: far closer to it than the same session with spot drawn 300 higher is', async () => {
    const option = sessionOption(sessionFixture(), LOOK);
    const png = PNG.sync.read(await encodeChart(option, LOOK, 'png'));
    const shifted = PNG.sync.read(await encodeChart(sessionOption(sessionFixture(300), LOOK), LOOK, 'png'));
    const inBrowser = differing(await browser.screenshot('intraday', await encodeChart(option, LOOK, 'svg')), png);
    const wrongPicture = differing(shifted, png);
    console.log(`pixels differing from the PNG: ${inBrowser} in Chromium, ${wrongPicture} with spot drawn 300 higher`);
    expect(wrongPicture).toBeGreaterThan(0);
    expect(inBrowser).toBeLessThan(wrongPicture / 3);
  }, 60_000);
});
