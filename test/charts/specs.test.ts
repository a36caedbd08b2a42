// Chart specs built from fixture rows: the right series, lines at the right strikes, titles that say
// which capture was drawn.
import { describe, expect, it } from 'vitest';
import { millions } from '../../src/charts/format.js';
import { levelsOption } from '../../src/charts/levels.js';
import { profileOption, strikesInRange } from '../../src/charts/profile.js';
import { termOption } from '../../src/charts/term.js';
import { markerSize, wallsOption } from '../../src/charts/walls.js';
import { LOOK, profileFixture, seriesFixture, termFixture } from './fixtures.js';

type AnySeries = { name: string; type: string; data: unknown[]; markLine?: { data: { name: string; xAxis: number; label: { formatter: string } }[] }; markArea?: { data: [{ xAxis: string; name: string }, { xAxis: string }][] } };
const seriesOf = (option: { series?: unknown }) => option.series as AnySeries[];
const titleOf = (option: { title?: unknown }) => option.title as { text: string; subtext: string };

describe('profile', () => {
  it('draws call GEX up and put GEX down per strike, in $M, with lines at spot, flip and the walls', () => {
    const option = profileOption(profileFixture(), { net: false }, LOOK);
    const series = seriesOf(option);
    expect(series.map((s) => [s.type, s.name])).toEqual([
      ['bar', 'call GEX'],
      ['bar', 'put GEX'],
    ]);
    expect(series[0]!.data).toEqual([[80_000, 1], [95_000, 2], [100_000, 3], [105_000, 4], [120_000, 5]]);
    expect(series[1]!.data).toEqual([[80_000, -2.5], [95_000, -2], [100_000, -1.5], [105_000, -1], [120_000, -0.5]]);
    const lines = series[0]!.markLine!.data.map((l) => [l.name, l.xAxis, l.label.formatter]);
    expect(lines).toEqual([
      ['spot', 100_000, 'spot 100,000'],
      ['flip', 98_500, 'flip 98,500'],
      ['call wall', 105_000, 'call wall 105,000'],
      ['put wall', 95_000, 'put wall 95,000'],
    ]);
  });

  it('titles the pair, the capture actually drawn, the time asked and the regime', () => {
    const title = titleOf(profileOption(profileFixture(), { net: false }, LOOK));
    expect(title.text).toBe('deribit BTC · GEX by strike (all expirations)');
    expect(title.subtext).toBe('capture 2026-03-10 23:45 UTC (as of 2026-03-11 00:05 UTC) · regime positive · spot 100,000');
    const { askedAt: _dropped, ...latest } = profileFixture();
    expect(titleOf(profileOption({ ...latest, expiration: '2026-03-27' }, { net: false }, LOOK)).subtext).toContain('(latest capture)');
    expect(titleOf(profileOption({ ...latest, expiration: '2026-03-27' }, { net: false }, LOOK)).text).toContain('expiration 2026-03-27');
  });

  it('--net draws one bar of net GEX', () => {
    const series = seriesOf(profileOption(profileFixture(), { net: true }, LOOK));
    expect(series.map((s) => s.name)).toEqual(['net GEX']);
    expect(series[0]!.data[0]).toEqual([80_000, -1.5]);
    expect(series[0]!.markLine!.data).toHaveLength(4);
  });

  it('leaves out a line whose level is unknown', () => {
    const series = seriesOf(profileOption({ ...profileFixture(), flip: null, putWall: null }, { net: false }, LOOK));
    expect(series[0]!.markLine!.data.map((l) => l.name)).toEqual(['spot', 'call wall']);
  });

  it('--range keeps the strikes within that percent of spot', () => {
    expect(strikesInRange(profileFixture(), 10).strikes.map((s) => s.strike)).toEqual([95_000, 100_000, 105_000]);
    expect(strikesInRange(profileFixture(), 20).strikes.map((s) => s.strike)).toEqual([80_000, 95_000, 100_000, 105_000, 120_000]);
    expect(strikesInRange(profileFixture(), 4).strikes.map((s) => s.strike)).toEqual([100_000]);
  });
});

describe('levels', () => {
  it('draws spot, flip and both walls per session close, and one band series per regime', () => {
    const option = levelsOption(seriesFixture(), LOOK);
    const series = seriesOf(option);
    expect(series.map((s) => s.name)).toEqual(['spot (close)', 'flip', 'call wall', 'put wall', 'positive regime', 'negative regime']);
    expect(series[0]!.data).toEqual([500, 505, 498, 497, 502]);
    expect(series[2]!.data).toEqual([1500, 1505, 1498, 1497, 1502]);
    expect((option.xAxis as { data: string[] }).data).toEqual(['2026-03-02', '2026-03-03', '2026-03-04', '2026-03-05', '2026-03-06']);
    expect(titleOf(option).subtext).toContain('5 sessions, 2026-03-02 to 2026-03-06');
  });

  it('shades every session with a regime across its whole slot: one-session runs and the latest included', () => {
    const bands = seriesOf(levelsOption(seriesFixture(), LOOK)).filter((s) => s.name.endsWith(' regime')) as (AnySeries & { barWidth: string; barCategoryGap: string; yAxisIndex: number })[];
    // The fixture: positive, positive, negative (one session), no regime, positive (the latest, alone).
    expect(bands.map((b) => [b.name, b.data])).toEqual([
      ['positive regime', [1, 1, null, null, 1]],
      ['negative regime', [null, null, 1, null, null]],
    ]);
    for (const band of bands) expect([band.type, band.barWidth, band.barCategoryGap, band.yAxisIndex]).toEqual(['bar', '100%', '0%', 1]);
  });

  it('names each regime in the legend', () => {
    const legend = levelsOption(seriesFixture(), LOOK).legend as { data: { name: string }[] };
    expect(legend.data.map((d) => d.name)).toEqual(['spot (close)', 'flip', 'call wall', 'put wall', 'positive regime', 'negative regime']);
  });
});

describe('walls', () => {
  it('draws spot and the two largest positive and negative GEX strikes per close, sized by |GEX|', () => {
    const series = seriesOf(wallsOption(seriesFixture(), LOOK));
    expect(series.map((s) => s.name)).toEqual(['spot (close)', 'largest +GEX', '2nd +GEX', 'largest -GEX', '2nd -GEX']);
    expect(series[1]!.data[0]).toEqual({ value: ['2026-03-02', 1500, 4], symbolSize: 22 });
    expect(series[3]!.data[0]).toEqual({ value: ['2026-03-02', -500, -3], symbolSize: markerSize(-3e6, 4e6) });
    expect(markerSize(-3e6, 4e6)).toBe(17.5);
  });
});

describe('term', () => {
  it('draws net GEX bars and open interest by expiration, titled with the capture', () => {
    const option = termOption(termFixture(), LOOK);
    const series = seriesOf(option);
    expect(series.map((s) => [s.type, s.name])).toEqual([
      ['bar', 'net GEX'],
      ['line', 'open interest'],
    ]);
    expect((series[0]!.data as { value: number }[]).map((d) => d.value)).toEqual([2, -1]);
    expect(series[1]!.data).toEqual([500, 900]);
    expect((option.xAxis as { data: string[] }).data).toEqual(['2026-03-13', '2026-03-27']);
    expect(titleOf(option).subtext).toContain('capture 2026-03-11 14:00 UTC (latest capture)');
  });
});

describe('millions', () => {
  it('keeps 4 significant digits, small values included', () => {
    expect(millions(3_482_519.7)).toBe(3.483);
    expect(millions(4_321.9)).toBe(0.004322);
    expect(millions(-1_550_000)).toBe(-1.55);
    expect(millions(null)).toBeNull();
  });
});
