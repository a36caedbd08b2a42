// A session whose last capture held is intraday (today's after `sync --fill-levels`) is drawn apart
// in every series chart: hollow, under its own legend entry, named "intraday 14:00 UTC", and no
// subtitle calls it a close. The nearest walls are drawn beside the API's, named apart. Checked on
// the ECharts options and, for the hollow bar, by pixel.
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { encodeChart } from '../../src/charts/draw.js';
import { levelsOption } from '../../src/charts/levels.js';
import { netGexOption } from '../../src/charts/netgex.js';
import { profileOption } from '../../src/charts/profile.js';
import type { SeriesData } from '../../src/charts/types.js';
import { wallsOption } from '../../src/charts/walls.js';
import { LOOK, profileFixture, seriesFixture } from './fixtures.js';

interface AnySeries {
  name: string;
  type: string;
  symbol?: string;
  data: unknown[];
  markLine?: { data: { name: string; xAxis: unknown; label: { formatter: string } }[] };
}
const seriesOf = (option: { series?: unknown }) => option.series as AnySeries[];
const subtitleOf = (option: { title?: unknown }) => (option.title as { subtext: string }).subtext;

/** The fixture's closes, the last one an intraday capture at 14:00 UTC of its session. */
function withIntraday(): SeriesData {
  const data = seriesFixture();
  const last = data.closes[data.closes.length - 1]!;
  data.closes[data.closes.length - 1] = { ...last, type: 'intraday', capturedAt: `${last.sessionDate}T14:00:00Z` };
  return data;
}

describe('an intraday capture in the series charts', () => {
  it('levels: the close line stops at the last close; the intraday spot is hollow, dashed from it, its own legend entry and label', () => {
    const option = levelsOption(withIntraday(), LOOK);
    const series = seriesOf(option);
    const closes = series.find((s) => s.name === 'spot (close)')!;
    expect(closes.data).toEqual([500, 505, 498, 497, null]);
    const intraday = series.find((s) => s.name === 'spot, intraday 14:00 UTC')!;
    expect(intraday).toMatchObject({ symbol: 'circle', itemStyle: { color: '#ffffff', borderColor: '#1f2328' } });
    expect(intraday.data).toEqual([null, null, null, { value: 497, symbol: 'none' }, 502]);
    expect(intraday.markLine!.data).toEqual([expect.objectContaining({ xAxis: '2026-03-06', label: { formatter: 'intraday 14:00 UTC' } })]);
    const legend = (option.legend as { data: { name: string; icon?: string }[] }).data;
    expect(legend).toContainEqual(expect.objectContaining({ name: 'spot, intraday 14:00 UTC', itemStyle: expect.objectContaining({ color: '#ffffff' }) }));
    expect(subtitleOf(option)).toContain('2026-03-06: intraday 14:00 UTC, not a close');
  });

  it('levels without an intraday capture: no intraday series, no note', () => {
    const option = levelsOption(seriesFixture(), LOOK);
    expect(seriesOf(option).map((s) => s.name)).not.toContain('spot, intraday 14:00 UTC');
    expect(subtitleOf(option)).not.toContain('intraday');
  });

  it('netgex: the subtitle names the latest real close and the intraday capture apart; the intraday bar is its own series', () => {
    const option = netGexOption(withIntraday(), LOOK);
    expect(subtitleOf(option)).toBe(
      '5 sessions, 2026-03-02 to 2026-03-06 · latest close 2026-03-05: net GEX +$1.00M · intraday 2026-03-06 14:00 UTC: net GEX +$1.00M',
    );
    const series = seriesOf(option);
    const bars = series.find((s) => s.name === 'net GEX')!;
    expect((bars.data as { value: number | null }[]).map((d) => d.value)).toEqual([1, 1, 1, 1, null]);
    const hollow = series.find((s) => s.name === 'net GEX, intraday 14:00 UTC')!;
    expect((hollow.data as { value: number | null }[]).map((d) => d.value)).toEqual([null, null, null, null, 1]);
    expect(series.map((s) => s.name)).toContain('spot, intraday 14:00 UTC');
  });

  it('netgex by pixel: the intraday bar is an outline, the closes are filled', async () => {
    const look = { width: 1000, height: 560, theme: 'light' as const };
    const image = PNG.sync.read(await encodeChart(netGexOption(withIntraday(), look), look, 'png'));
    // Plot from x = 72 to 928; five category slots. Count the bars' green (#2da44e) in the middle third of each slot.
    const green = (x: number, y: number) => {
      const i = (image.width * y + x) * 4;
      return Math.abs(image.data[i]! - 0x2d) + Math.abs(image.data[i + 1]! - 0xa4) + Math.abs(image.data[i + 2]! - 0x4e) < 60;
    };
    const slot = (k: number) => {
      const width = (928 - 72) / 5;
      let n = 0;
      for (let x = Math.round(72 + width * k + width / 3); x < 72 + width * k + (2 * width) / 3; x += 1)
        for (let y = 140; y < 496; y += 1) if (green(x, y)) n += 1;
      return n;
    };
    const filled = slot(3);
    expect(filled).toBeGreaterThan(500);
    // Same height of bar, only its dashed border: a small share of the pixels, but some.
    expect(slot(4)).toBeGreaterThan(20);
    expect(slot(4)).toBeLessThan(filled * 0.4);
  });

  it('walls: the intraday walls are hollow markers of their own series, not among the closes', () => {
    const series = seriesOf(wallsOption(withIntraday(), LOOK));
    const largest = series.find((s) => s.name === 'largest +GEX')!;
    expect((largest.data as { value: unknown[] }[]).map((d) => d.value[0])).not.toContain('2026-03-06');
    const intraday = series.find((s) => s.name === 'walls, intraday 14:00 UTC')!;
    expect(intraday.data).toHaveLength(4);
    expect((intraday.data as { itemStyle: { color: string } }[]).every((d) => d.itemStyle.color === '#ffffff')).toBe(true);
  });
});

describe('the nearest walls beside the API walls', () => {
  it('profile: two more lines, named by their rule and range, each with its distance from spot', () => {
    const data = { ...profileFixture(), nearestWalls: { rangePct: 10, call: 105_000, put: 95_000 } };
    const lines = seriesOf(profileOption(data, { net: false }, LOOK))[0]!.markLine!.data.map((l) => l.label.formatter);
    expect(lines).toEqual([
      'spot 100,000',
      'flip 98,500 (-1.50%)',
      'API call wall (p1) 105,000 (+5.00%)',
      'API put wall (n1) 95,000 (-5.00%)',
      'nearest call wall (±10%) 105,000 (+5.00%)',
      'nearest put wall (±10%) 95,000 (-5.00%)',
    ]);
  });

  it('levels: the nearest walls as their own lines, the range in their names', () => {
    const data = { ...seriesFixture(), rangePct: 5 };
    const series = seriesOf(levelsOption(data, LOOK));
    expect(series.find((s) => s.name === 'nearest call wall (±5%)')!.data).toEqual([1000, 1005, 998, 997, 1002]);
    expect(series.find((s) => s.name === 'nearest put wall (±5%)')!.data).toEqual([0, 5, -2, -3, 2]);
  });
});
