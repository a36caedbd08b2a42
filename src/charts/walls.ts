// Where the largest positive and negative GEX strikes sat at each session close, against spot:
// p1/p2 (largest positive) and n1/n2 (largest negative) from levels_close, sized by their GEX.
import type { EChartsOption, SeriesOption } from 'echarts';
import { axisLook, baseOption, legendBelowTitle } from './common.js';
import { millions, pairName } from './format.js';
import { closesOnlyValues, intradayName, isIntraday } from './intraday.js';
import { intradaySpotSeries, rangeText } from './levels.js';
import type { Palette } from './theme.js';
import type { CloseRow, Look, SeriesData } from './types.js';

const MIN_SIZE = 4;
const MAX_SIZE = 22;

/** Marker sizes proportional to |GEX| against the largest |GEX| of the chart. */
export function markerSize(gex: number | null, largest: number): number {
  if (gex === null || largest === 0) return MIN_SIZE;
  return Math.round((MIN_SIZE + (MAX_SIZE - MIN_SIZE) * Math.min(1, Math.abs(gex) / largest)) * 10) / 10;
}

export function wallsOption(data: SeriesData, look: Look): EChartsOption {
  const { option, palette } = baseOption(
    look,
    `${pairName(data)} · GEX walls at each session close`,
    `${rangeText(data, true, look.timeZone)} · marker size: |GEX|`,
  );
  const largest = Math.max(0, ...data.closes.flatMap((c) => [c.p1Gex, c.p2Gex, c.n1Gex, c.n2Gex].map((g) => Math.abs(g ?? 0))));
  const scatter = (
    name: string,
    color: string,
    strike: (c: CloseRow) => number | null,
    gex: (c: CloseRow) => number | null,
    opacity: number,
  ): SeriesOption => ({
    type: 'scatter',
    name,
    itemStyle: { color, opacity },
    data: data.closes
      .filter((c) => !isIntraday(c))
      .map((c) => ({ value: [c.sessionDate, strike(c), millions(gex(c))], symbolSize: markerSize(gex(c), largest) })),
  });
  const intraday = intradayWalls(data, palette, largest, look.timeZone);
  const spot = intradaySpotSeries(data, palette, 0, look.timeZone);
  return {
    ...option,
    ...legendBelowTitle(option),
    tooltip: { trigger: 'item', confine: true },
    xAxis: { type: 'category', data: data.closes.map((c) => c.sessionDate), ...axisLook(palette), splitLine: { show: false } },
    yAxis: { type: 'value', scale: true, name: 'strike', ...axisLook(palette) },
    series: [
      {
        type: 'line',
        name: 'spot (close)',
        data: closesOnlyValues(data, (c) => c.spot),
        symbol: 'none',
        itemStyle: { color: palette.spot },
        lineStyle: { color: palette.spot, width: 2 },
      },
      scatter(
        'largest +GEX',
        palette.call,
        (c) => c.p1Strike,
        (c) => c.p1Gex,
        0.9,
      ),
      scatter(
        '2nd +GEX',
        palette.call,
        (c) => c.p2Strike,
        (c) => c.p2Gex,
        0.45,
      ),
      scatter(
        'largest -GEX',
        palette.put,
        (c) => c.n1Strike,
        (c) => c.n1Gex,
        0.9,
      ),
      scatter(
        '2nd -GEX',
        palette.put,
        (c) => c.n2Strike,
        (c) => c.n2Gex,
        0.45,
      ),
      ...(intraday ? [intraday] : []),
      ...(spot ? [spot] : []),
    ],
  };
}

/** The walls of intraday captures: hollow markers, green for +GEX and red for -GEX, under their own legend entry. */
function intradayWalls(data: SeriesData, palette: Palette, largest: number, zone = 'UTC'): SeriesOption | undefined {
  const name = intradayName(data, zone);
  if (name === undefined) return undefined;
  const points = data.closes.filter(isIntraday).flatMap((c) =>
    (
      [
        [c.p1Strike, c.p1Gex, palette.call],
        [c.p2Strike, c.p2Gex, palette.call],
        [c.n1Strike, c.n1Gex, palette.put],
        [c.n2Strike, c.n2Gex, palette.put],
      ] as const
    ).map(([strike, gex, color]) => ({
      value: [c.sessionDate, strike, millions(gex)],
      symbolSize: markerSize(gex, largest),
      itemStyle: { color: palette.background, borderColor: color, borderWidth: 1.5 },
    })),
  );
  return {
    type: 'scatter',
    name: `walls, ${name}`,
    symbol: 'circle',
    itemStyle: { color: palette.background, borderColor: palette.call, borderWidth: 1.5 },
    data: points,
  };
}
