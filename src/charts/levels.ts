// Spot, gamma flip, the API's call/put walls and the nearest walls (nearest_walls, within the chart's
// range) at each session's close (levels_close), with the regime of
// each close as a shaded band across its session and every close marked on the spot line.
import type { EChartsOption, SeriesOption } from 'echarts';
import { axisLook, baseOption, legendBelowTitle } from './common.js';
import { pairName } from './format.js';
import { closesOnlyValues, intradayLineValues, intradayName, intradayNote, isIntraday, timeOfDay } from './intraday.js';
import { API_CALL_WALL, API_PUT_WALL, nearestWallName } from './profile.js';
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
  return regimeBands(
    data.closes.map((c) => c.regime),
    palette,
  );
}

/** The bands of regimeSeries over any category axis: one regime (or null) per category. */
export function regimeBands(regimes: readonly (string | null)[], palette: Palette): SeriesOption[] {
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
    data: regimes.map((r) => (r === regime ? 1 : null)),
  }));
}

/** "15 sessions, 2026-03-02 to 2026-03-16", and by default which of them ends in an intraday capture. */
export function rangeText(data: SeriesData, withIntraday = true, zone = 'UTC'): string {
  const first = data.closes[0]?.sessionDate ?? '-';
  const last = data.closes[data.closes.length - 1]?.sessionDate ?? '-';
  return `${data.closes.length} sessions, ${first} to ${last}${withIntraday ? intradayNote(data, zone) : ''}`;
}

/**
 * The intraday spot apart from the closes: a hollow marker joined to the last close by a dashed
 * segment, with a dotted line at its session labelled "intraday 14:00 UTC". Undefined when every row
 * is a close.
 */
export function intradaySpotSeries(data: SeriesData, palette: Palette, yAxisIndex = 0, zone = 'UTC'): SeriesOption | undefined {
  const name = intradayName(data, zone);
  if (name === undefined) return undefined;
  return {
    type: 'line',
    name: `spot, ${name}`,
    yAxisIndex,
    z: 4,
    data: intradayLineValues(data, (c) => c.spot),
    connectNulls: false,
    // Hollow in either theme: filled with the background (ECharts' emptyCircle is filled white).
    symbol: 'circle',
    symbolSize: 9,
    itemStyle: { color: palette.background, borderColor: palette.spot, borderWidth: 2 },
    lineStyle: { color: palette.spot, width: 2, type: 'dashed' },
    markLine: {
      silent: true,
      symbol: 'none',
      lineStyle: { color: palette.subtext, type: 'dotted', width: 1 },
      label: { color: palette.subtext, fontSize: 11, position: 'insideEndTop' },
      data: data.closes.filter(isIntraday).map((c) => ({ xAxis: c.sessionDate, label: { formatter: `intraday ${timeOfDay(c.capturedAt, zone)}` } })),
    },
  };
}

export function levelsOption(data: SeriesData, look: Look): EChartsOption {
  const { option, palette } = baseOption(
    look,
    `${pairName(data)} · levels at each session close`,
    `${rangeText(data, true, look.timeZone)} · shaded: the regime at each session's close`,
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
    closesOnlyValues(data, (c) => c.spot),
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
      API_CALL_WALL,
      palette.callWall,
      data.closes.map((c) => c.callWall),
      { step: 'middle' },
    ),
    line(
      API_PUT_WALL,
      palette.putWall,
      data.closes.map((c) => c.putWall),
      { step: 'middle' },
    ),
    line(
      nearestWallName('call', data.rangePct),
      palette.nearestCallWall,
      data.closes.map((c) => c.nearestCallWall),
      { step: 'middle', lineStyle: { color: palette.nearestCallWall, width: 1.5, type: 'dashed' } },
    ),
    line(
      nearestWallName('put', data.rangePct),
      palette.nearestPutWall,
      data.closes.map((c) => c.nearestPutWall),
      { step: 'middle', lineStyle: { color: palette.nearestPutWall, width: 1.5, type: 'dashed' } },
    ),
  ];
  // The legend shows each regime in a stronger tint than its band, so the entry reads at legend size.
  const intraday = intradaySpotSeries(data, palette, 0, look.timeZone);
  const legendData = [
    ...lines.map((l) => ({ name: l.name as string })),
    ...(intraday
      ? [{ name: intraday.name as string, icon: 'circle', itemStyle: { color: palette.background, borderColor: palette.spot, borderWidth: 2 } }]
      : []),
    ...REGIMES.map((regime) => ({ name: `${regime} regime`, itemStyle: { color: regime === 'negative' ? palette.put : palette.call, opacity: 0.35 } })),
  ];
  return {
    ...option,
    ...legendBelowTitle(option),
    legend: { ...(legendBelowTitle(option).legend as object), data: legendData },
    xAxis: { type: 'category', data: dates, boundaryGap: true, ...axisLook(palette), splitLine: { show: false } },
    yAxis: [
      { type: 'value', scale: true, name: 'price', ...axisLook(palette) },
      { type: 'value', min: 0, max: 1, show: false },
    ],
    series: [...lines, ...(intraday ? [intraday] : []), ...regimeSeries(data, palette)],
  };
}
