// Spot, gamma flip and the call/put walls at each session's close (levels_close), with the regime of
// each close as a shaded band and every close marked on the spot line.
import type { EChartsOption, SeriesOption } from 'echarts';
import { axisLook, baseOption } from './common.js';
import { pairName } from './format.js';
import type { Look, SeriesData } from './types.js';

export interface RegimeBand {
  regime: string;
  from: string;
  to: string;
}

/** Runs of consecutive sessions with the same regime (null regimes break runs and get no band). */
export function regimeBands(data: SeriesData): RegimeBand[] {
  const bands: RegimeBand[] = [];
  let current: RegimeBand | undefined;
  for (const close of data.closes) {
    if (current && close.regime === current.regime) {
      current.to = close.sessionDate;
      continue;
    }
    current = close.regime === null ? undefined : { regime: close.regime, from: close.sessionDate, to: close.sessionDate };
    if (current) bands.push(current);
  }
  return bands;
}

export function rangeText(data: SeriesData): string {
  const first = data.closes[0]?.sessionDate ?? '-';
  const last = data.closes[data.closes.length - 1]?.sessionDate ?? '-';
  return `${data.closes.length} sessions, ${first} to ${last}`;
}

export function levelsOption(data: SeriesData, look: Look): EChartsOption {
  const { option, palette } = baseOption(look, `${pairName(data)} · levels at each session close`, `${rangeText(data)} · shaded: regime (green positive, red negative)`);
  const dates = data.closes.map((c) => c.sessionDate);
  const line = (name: string, color: string, values: (number | null)[], extra: Record<string, unknown> = {}): SeriesOption =>
    ({ type: 'line', name, data: values, connectNulls: false, itemStyle: { color }, lineStyle: { color, width: 1.5 }, symbol: 'none', ...extra }) as SeriesOption;
  const spot = line(
    'spot (close)',
    palette.spot,
    data.closes.map((c) => c.spot),
    {
      symbol: 'circle',
      symbolSize: 5,
      lineStyle: { color: palette.spot, width: 2 },
      markArea: {
        silent: true,
        label: { show: false },
        data: regimeBands(data).map((b) => [
          { name: b.regime, xAxis: b.from, itemStyle: { color: b.regime === 'negative' ? palette.negativeBand : palette.positiveBand } },
          { xAxis: b.to },
        ]),
      },
    },
  );
  return {
    ...option,
    xAxis: { type: 'category', data: dates, boundaryGap: true, ...axisLook(palette), splitLine: { show: false } },
    yAxis: { type: 'value', scale: true, name: 'price', ...axisLook(palette) },
    series: [
      spot,
      line('flip', palette.flip, data.closes.map((c) => c.flip), { lineStyle: { color: palette.flip, width: 1.5, type: 'dashed' } }),
      line('call wall', palette.callWall, data.closes.map((c) => c.callWall), { step: 'middle' }),
      line('put wall', palette.putWall, data.closes.map((c) => c.putWall), { step: 'middle' }),
    ],
  };
}
