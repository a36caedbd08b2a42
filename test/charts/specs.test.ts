// Chart specs built from fixture rows: the right series, lines at the right strikes, titles that say
// which capture was drawn.
import { describe, expect, it } from 'vitest';
import { distancePct, millions, price, usdMillions } from '../../src/charts/format.js';
import { levelsOption } from '../../src/charts/levels.js';
import { netGexOption } from '../../src/charts/netgex.js';
import { oiOption } from '../../src/charts/oi.js';
import { PROFILE_GRID, profileOption, strikesInRange } from '../../src/charts/profile.js';
import { withCumulativeNetGex } from '../../src/charts/read.js';
import { termOption } from '../../src/charts/term.js';
import { markerSize, wallsOption } from '../../src/charts/walls.js';
import { LOOK, profileFixture, seriesFixture, termFixture } from './fixtures.js';

type AnySeries = {
  name: string;
  type: string;
  data: unknown[];
  markLine?: { data: { name: string; xAxis: number; label: { formatter: string } }[] };
  markArea?: { data: [{ xAxis: string; name: string }, { xAxis: string }][] };
};
const seriesOf = (option: { series?: unknown }) => option.series as AnySeries[];
const titleOf = (option: { title?: unknown }) => option.title as { text: string; subtext: string };

type Axis = { min: number; max: number; interval?: number };
type Marked = AnySeries & { markPoint?: { data: { name: string; coord: [number, number] }[]; label: { formatter: string } }; yAxisIndex?: number };

describe('profile', () => {
  it('draws call GEX up and put GEX down per strike, in $M, with lines at spot, flip and the walls and their distance from spot', () => {
    const option = profileOption(profileFixture(), { net: false }, LOOK);
    const series = seriesOf(option);
    expect(series.map((s) => [s.type, s.name])).toEqual([
      ['bar', 'call GEX'],
      ['bar', 'put GEX'],
      ['line', 'cumulative net GEX'],
    ]);
    expect(series[0]!.data).toEqual([
      [80_000, 1],
      [95_000, 2],
      [100_000, 3],
      [105_000, 4],
      [120_000, 5],
    ]);
    expect(series[1]!.data).toEqual([
      [80_000, -2.5],
      [95_000, -2],
      [100_000, -1.5],
      [105_000, -1],
      [120_000, -0.5],
    ]);
    const lines = series[0]!.markLine!.data.map((l) => [l.name, l.xAxis, l.label.formatter]);
    expect(lines).toEqual([
      ['spot', 100_000, 'spot 100,000'],
      ['flip', 98_500, 'flip 98,500 (-1.50%)'],
      ['API call wall (p1)', 105_000, 'API call wall (p1) 105,000 (+5.00%)'],
      ['API put wall (n1)', 95_000, 'API put wall (n1) 95,000 (-5.00%)'],
    ]);
  });

  it('titles the pair, the totals, the capture actually drawn, the time asked, the regime and what the walls are', () => {
    const title = titleOf(profileOption(profileFixture(), { net: false }, LOOK));
    expect(title.text).toBe('deribit BTC · GEX by strike (all expirations) · net +$7.50M (calls $15.00M, puts $7.50M)');
    expect(title.subtext).toBe(
      "capture 2026-03-10 23:45 UTC (as of 2026-03-11 00:05 UTC) · regime positive · spot 100,000 · API walls: the chain's largest +/- net-GEX strikes",
    );
    const { askedAt: _dropped, ...latest } = profileFixture();
    expect(titleOf(profileOption({ ...latest, expiration: '2026-03-27' }, { net: false }, LOOK)).subtext).toContain('(latest capture)');
    expect(titleOf(profileOption({ ...latest, expiration: '2026-03-27' }, { net: false }, LOOK)).text).toContain('expiration 2026-03-27');
    expect(titleOf(profileOption({ ...latest, closeOf: '2026-03-10' }, { net: false }, LOOK)).subtext).toContain('(close of session 2026-03-10)');
  });

  it('the strike axis fits the bars: from the first strike to the last, whatever the levels', () => {
    const x = profileOption({ ...profileFixture(), callWall: 150_000 }, { net: false }, LOOK).xAxis as Axis;
    expect([x.min, x.max]).toEqual([80_000, 120_000]);
  });

  it('a level beyond the bars is its label at the edge with an arrow, not a stretched axis (bybit BTC: call wall 120,000, spot 76,257)', () => {
    const strikes = withCumulativeNetGex(
      [70_000, 72_000, 74_000, 76_000, 78_000, 80_000, 82_000, 84_000].map((strike) => ({
        strike,
        callGex: 1e6,
        putGex: 5e5,
        netGex: 5e5,
        callOi: 1,
        putOi: 1,
      })),
    );
    const far = { ...profileFixture(), spot: 76_257, flip: 75_000, callWall: 120_000, putWall: 60_000, strikes };
    const option = profileOption(far, { net: false }, LOOK);
    const x = option.xAxis as Axis;
    expect([x.min, x.max]).toEqual([70_000, 84_000]);
    const series = seriesOf(option) as (AnySeries & {
      markPoint?: { data: { name: string; x: number; y: number; label: { formatter: string; position: string } }[] };
    })[];
    expect(series[0]!.markLine!.data.map((l) => [l.name, l.xAxis, l.label.formatter])).toEqual([
      ['spot', 76_257, 'spot 76,257'],
      ['flip', 75_000, 'flip 75,000 (-1.65%)'],
    ]);
    // At the plot's right and left edges (the grid is 72 px from the left, 80 from the right), in the walls' label rows.
    const edges = series[2]!.markPoint!.data.map((p) => [p.name, p.x, p.y, p.label.formatter, p.label.position]);
    expect(edges).toEqual([
      ['API call wall (p1)', LOOK.width - 80, PROFILE_GRID.top - 34 - 6, 'API call wall (p1) 120,000 (+57.4%) →', 'left'],
      ['API put wall (n1)', 72, PROFILE_GRID.top - 49 - 6, '← API put wall (n1) 60,000 (-21.3%)', 'right'],
    ]);
  });

  it('marks the largest call GEX and put GEX bars as such', () => {
    const [calls, puts] = seriesOf(profileOption(profileFixture(), { net: false }, LOOK)) as Marked[];
    expect(calls!.markPoint!.data).toEqual([{ name: 'largest call GEX', coord: [120_000, 5] }]);
    expect(calls!.markPoint!.label.formatter).toBe('largest call GEX 120,000');
    expect(puts!.markPoint!.data).toEqual([{ name: 'largest put GEX', coord: [80_000, -2.5] }]);
    expect(puts!.markPoint!.label.formatter).toBe('largest put GEX 80,000');
  });

  it("draws the cumulative net GEX on a second axis whose zero is level with the bars' zero", () => {
    const option = profileOption(profileFixture(), { net: false }, LOOK);
    const cumulative = seriesOf(option)[2] as Marked;
    expect(cumulative.yAxisIndex).toBe(1);
    // Net GEX per strike: -1.5, 0, 1.5, 3, 4.5 ($M), summed from the lowest strike.
    expect(cumulative.data).toEqual([
      [80_000, -1.5],
      [95_000, -1.5],
      [100_000, 0],
      [105_000, 3],
      [120_000, 7.5],
    ]);
    const [gex, cum] = option.yAxis as Required<Axis>[];
    expect(gex!.min).toBeLessThanOrEqual(-2.5);
    expect(gex!.max).toBeGreaterThanOrEqual(5);
    expect(cum!.min).toBeLessThanOrEqual(-1.5);
    expect(cum!.max).toBeGreaterThanOrEqual(7.5);
    expect(-gex!.min / gex!.interval).toBe(-cum!.min / cum!.interval);
    expect((gex!.max - gex!.min) / gex!.interval).toBe((cum!.max - cum!.min) / cum!.interval);
  });

  it('--net draws one bar of net GEX', () => {
    const series = seriesOf(profileOption(profileFixture(), { net: true }, LOOK));
    expect(series.map((s) => s.name)).toEqual(['net GEX', 'cumulative net GEX']);
    expect(series[0]!.data[0]).toEqual([80_000, -1.5]);
    expect(series[0]!.markLine!.data).toHaveLength(4);
  });

  it('leaves out a line whose level is unknown', () => {
    const series = seriesOf(profileOption({ ...profileFixture(), flip: null, putWall: null }, { net: false }, LOOK));
    expect(series[0]!.markLine!.data.map((l) => l.name)).toEqual(['spot', 'API call wall (p1)']);
  });

  it('--range keeps the strikes within that percent of spot', () => {
    expect(strikesInRange(profileFixture(), 10).strikes.map((s) => s.strike)).toEqual([95_000, 100_000, 105_000]);
    expect(strikesInRange(profileFixture(), 20).strikes.map((s) => s.strike)).toEqual([80_000, 95_000, 100_000, 105_000, 120_000]);
    expect(strikesInRange(profileFixture(), 4).strikes.map((s) => s.strike)).toEqual([100_000]);
    // The cumulative curve keeps the strikes below the range in its sum.
    expect(strikesInRange(profileFixture(), 10).strikes.map((s) => s.cumulativeNetGex)).toEqual([-1.5e6, 0, 3e6]);
  });
});

describe('oi', () => {
  it('draws call OI up and put OI down per strike, titled with the totals and the put/call ratio', () => {
    const option = oiOption(profileFixture(), LOOK);
    const series = seriesOf(option) as Marked[];
    expect(series.map((s) => [s.type, s.name])).toEqual([
      ['bar', 'call OI'],
      ['bar', 'put OI'],
    ]);
    expect(series[0]!.data).toEqual([
      [80_000, 100],
      [95_000, 200],
      [100_000, 300],
      [105_000, 400],
      [120_000, 500],
    ]);
    expect(series[1]!.data).toEqual([
      [80_000, -400],
      [95_000, -320],
      [100_000, -240],
      [105_000, -160],
      [120_000, -80],
    ]);
    expect(series[0]!.markPoint!.label.formatter).toBe('largest call OI 120,000');
    expect(series[1]!.markPoint!.label.formatter).toBe('largest put OI 80,000');
    expect(titleOf(option).text).toBe('deribit BTC · open interest by strike (all expirations) · calls 5,000, puts 4,000 contracts · put/call 0.80');
    expect((option.xAxis as Axis).min).toBe(80_000);
  });
});

describe('netgex', () => {
  it('draws net GEX per session close as bars coloured by sign, and spot on a second axis', () => {
    const data = seriesFixture();
    data.closes[2]!.netGex = -2e6;
    const option = netGexOption(data, LOOK);
    const [bars, spot] = seriesOf(option) as (AnySeries & { yAxisIndex?: number })[];
    expect((bars!.data as { value: number; itemStyle: { color: string } }[]).map((d) => [d.value, d.itemStyle.color])).toEqual([
      [1, '#2da44e'],
      [1, '#2da44e'],
      [-2, '#cf222e'],
      [1, '#2da44e'],
      [1, '#2da44e'],
    ]);
    expect([spot!.name, spot!.yAxisIndex, spot!.data]).toEqual(['spot (close)', 1, [500, 505, 498, 497, 502]]);
    expect(titleOf(option).text).toBe('tradfi SPY · net GEX and spot at each session close');
    expect(titleOf(option).subtext).toBe('5 sessions, 2026-03-02 to 2026-03-06 · latest close 2026-03-06: net GEX +$1.00M');
  });
});

describe('levels', () => {
  it('draws spot, flip and both walls per session close, and one band series per regime', () => {
    const option = levelsOption(seriesFixture(), LOOK);
    const series = seriesOf(option);
    expect(series.map((s) => s.name)).toEqual([
      'spot (close)',
      'flip',
      'API call wall (p1)',
      'API put wall (n1)',
      'nearest call wall (±10%)',
      'nearest put wall (±10%)',
      'positive regime',
      'negative regime',
    ]);
    expect(series[0]!.data).toEqual([500, 505, 498, 497, 502]);
    expect(series[2]!.data).toEqual([1500, 1505, 1498, 1497, 1502]);
    expect((option.xAxis as { data: string[] }).data).toEqual(['2026-03-02', '2026-03-03', '2026-03-04', '2026-03-05', '2026-03-06']);
    expect(titleOf(option).subtext).toContain('5 sessions, 2026-03-02 to 2026-03-06');
  });

  it('shades every session with a regime across its whole slot: one-session runs and the latest included', () => {
    const bands = seriesOf(levelsOption(seriesFixture(), LOOK)).filter((s) => s.name.endsWith(' regime')) as (AnySeries & {
      barWidth: string;
      barCategoryGap: string;
      yAxisIndex: number;
    })[];
    // The fixture: positive, positive, negative (one session), no regime, positive (the latest, alone).
    expect(bands.map((b) => [b.name, b.data])).toEqual([
      ['positive regime', [1, 1, null, null, 1]],
      ['negative regime', [null, null, 1, null, null]],
    ]);
    for (const band of bands) expect([band.type, band.barWidth, band.barCategoryGap, band.yAxisIndex]).toEqual(['bar', '100%', '0%', 1]);
  });

  it('names each regime in the legend', () => {
    const legend = levelsOption(seriesFixture(), LOOK).legend as { data: { name: string }[] };
    expect(legend.data.map((d) => d.name)).toEqual([
      'spot (close)',
      'flip',
      'API call wall (p1)',
      'API put wall (n1)',
      'nearest call wall (±10%)',
      'nearest put wall (±10%)',
      'positive regime',
      'negative regime',
    ]);
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

describe('text for traders', () => {
  it('prices as the venue quotes them, $M by size, distances in percent', () => {
    expect([price(76_500), price(537.5), price(78_308.68), price(540), price(null)]).toEqual(['76,500', '537.5', '78,308.68', '540', '-']);
    expect([usdMillions(120_540_000), usdMillions(3_482_519), usdMillions(962_000, true), usdMillions(-1_200_000, true), usdMillions(3_413_000_000)]).toEqual([
      '$120.5M',
      '$3.48M',
      '+$0.962M',
      '-$1.20M',
      '$3,413M',
    ]);
    expect([distancePct(78_070.77, 78_308.68), distancePct(120_000, 76_257), distancePct(100, 100)]).toEqual(['-0.30%', '+57.4%', '+0.00%']);
  });
});
