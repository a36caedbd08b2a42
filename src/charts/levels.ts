// Spot, gamma flip and the call/put walls at each session's close (levels_close), with the regime of
// each close as a shaded band across its session and every close marked on the spot line.
import type { EChartsOption, SeriesOption } from 'echarts';
import { axisLook, baseOption } from './common.js';
import { pairName } from './format.js';
import type { Palette } from './theme.js';
import type { Look, SeriesData } from './types.js';

export const REGIMES = ['positive', 'negative'] as const;

/**
 * One band series per regime: a full-height bar in each session of that regime on a hidden 0–1 axis,
 * as wide as the session's slot. So a band runs from session boundary to session boundary: a
 * one-session run is shaded, runs meet with no gap, and the latest session is shaded too (markArea
 * between category values ran from the centre of a run's first session to the centre of its last).
 * A session with no regime stays unshaded.
 */
export function regimeSeries(data: SeriesData, palette: Palette): SeriesOption[] {
  return REGIMES.map((regime): SeriesOption => ({
    type: 'bar',
    name: `${regime} regime`,
    yAxisIndex: 1,
    silent: true,
    z: 1,
    barWidth: '100%',
    barGap: '-100%',
    barCategoryGap: '0%',
    itemStyle: { color: regime === 'negative' ? palette.negativeBand : palette.positiveBand },
    emphasis: { disabled: true },
    // In the report's tooltip as its session's regime (the page's formatter names it).
    data: data.closes.map((c) => (c.regime === regime ? 1 : null)),
  }));
}

export function rangeText(data: SeriesData): string {
  const first = data.closes[0]?.sessionDate ?? '-';
  const last = data.closes[data.closes.length - 1]?.sessionDate ?? '-';
  return `${data.closes.length} sessions, ${first} to ${last}`;
}

export function levelsOption(data: SeriesData, look: Look): EChartsOption {
  const { option, palette } = baseOption(
    look,
    `${pairName(data)} · levels at each session close`,
    `${rangeText(data)} · shaded: the regime at each session's close`,
  );
  const dates = data.closes.map((c) => c.sessionDate);
  const line = (name: string, color: string, values: (number | null)[], extra: Record<string, unknown> = {}): SeriesOption => ({
    type: 'line',
    name,
    data: values,
    connectNulls: false,
    itemStyle: { color },
    lineStyle: { color, width: 1.5 },
    symbol: 'none',
    ...extra,
  });
  const spot = line(
    'spot (close)',
    palette.spot,
    data.closes.map((c) => c.spot),
    { symbol: 'circle', symbolSize: 5, lineStyle: { color: palette.spot, width: 2 } },
  );
  const lines = [
    spot,
    line(
      'flip',
      palette.flip,
      data.closes.map((c) => c.flip),
      { lineStyle: { color: palette.flip, width: 1.5, type: 'dashed' } },
    ),
    line(
      'call wall',
      palette.callWall,
      data.closes.map((c) => c.callWall),
      { step: 'middle' },
    ),
    line(
      'put wall',
      palette.putWall,
      data.closes.map((c) => c.putWall),
      { step: 'middle' },
    ),
  ];
  // The legend shows each regime in a stronger tint than its band, so the entry reads at legend size.
  const legendData = [
    ...lines.map((l) => ({ name: l.name as string })),
    ...REGIMES.map((regime) => ({ name: `${regime} regime`, itemStyle: { color: regime === 'negative' ? palette.put : palette.call, opacity: 0.35 } })),
  ];
  return {
    ...option,
    legend: { ...(option.legend as object), data: legendData },
    xAxis: { type: 'category', data: dates, boundaryGap: true, ...axisLook(palette), splitLine: { show: false } },
    yAxis: [
      { type: 'value', scale: true, name: 'price', ...axisLook(palette) },
      { type: 'value', min: 0, max: 1, show: false },
    ],
    series: [...lines, ...regimeSeries(data, palette)],
  };
}
