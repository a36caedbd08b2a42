// `gexwh chart intraday`: spot, flip, the API's walls and the nearest walls over one session's
// captures, the regime at each capture shaded across its slot. Every capture but the session's close
// is intraday: the spot markers of those are hollow under the legend entry "spot (intraday capture)",
// and the close alone is filled, "spot (close)". A session not closed yet says so in its subtitle,
// and nothing calls its last capture a close.
import type { EChartsOption, SeriesOption } from 'echarts';
import { axisLook, baseOption, legendBelowTitle } from './common.js';
import { captureTime, pairName, price } from './format.js';
import { REGIMES, regimeBands } from './levels.js';
import { API_CALL_WALL, API_PUT_WALL, nearestWallName } from './profile.js';
import type { Palette } from './theme.js';
import type { CaptureRow, Look, SessionCaptures } from './types.js';
import { clockInZone } from '../time/zones.js';

export const INTRADAY_SPOT = 'spot (intraday capture)';
export const CLOSE_SPOT = 'spot (close)';

const isClose = (c: CaptureRow): boolean => c.type === 'close';

/** "96 captures, 00:00 to 23:45 UTC; the last is the session's close" or "…; all intraday: the session has not closed". */
export function sessionText(data: SessionCaptures, zone: string): string {
  const first = data.captures[0]!;
  const last = data.captures[data.captures.length - 1]!;
  const span = `${data.captures.length} capture${data.captures.length === 1 ? '' : 's'}, ${clockInZone(first.capturedAt, zone)} to ${clockInZone(last.capturedAt, zone)}`;
  const close = data.captures.find(isClose);
  if (close === undefined) return `${span}; all intraday: no close held for this session`;
  return `${span}; the close at ${clockInZone(close.capturedAt, zone)}, spot ${price(close.spot)}`;
}

type Point = number | null | { value: number | null; symbol: 'none' };

function line(name: string, color: string, values: Point[], extra: Record<string, unknown> = {}): SeriesOption {
  return { type: 'line', name, data: values, connectNulls: false, itemStyle: { color }, lineStyle: { color, width: 1.5 }, symbol: 'none', ...extra };
}

function spotSeries(data: SessionCaptures, palette: Palette): SeriesOption[] {
  const hollow = { color: palette.background, borderColor: palette.spot, borderWidth: 1.5 };
  const intraday = line(
    INTRADAY_SPOT,
    palette.spot,
    // The line runs through every capture; only the intraday ones carry its hollow marker.
    data.captures.map((c) => (isClose(c) ? { value: c.spot, symbol: 'none' } : c.spot)),
    {
      z: 4,
      symbol: 'circle',
      symbolSize: 5,
      itemStyle: hollow,
      lineStyle: { color: palette.spot, width: 2 },
    },
  );
  const series = [intraday];
  if (data.captures.some(isClose)) {
    series.push(
      line(
        CLOSE_SPOT,
        palette.spot,
        data.captures.map((c) => (isClose(c) ? c.spot : null)),
        { z: 5, symbol: 'circle', symbolSize: 9, itemStyle: { color: palette.spot } },
      ),
    );
  }
  return series;
}

function wallSeries(data: SessionCaptures, palette: Palette): SeriesOption[] {
  const of = (value: (c: CaptureRow) => number | null) => data.captures.map(value);
  const series = [
    line(
      'flip',
      palette.flip,
      of((c) => c.flip),
      { lineStyle: { color: palette.flip, width: 1.5, type: 'dashed' } },
    ),
    line(
      API_CALL_WALL,
      palette.callWall,
      of((c) => c.callWall),
      { step: 'middle' },
    ),
    line(
      API_PUT_WALL,
      palette.putWall,
      of((c) => c.putWall),
      { step: 'middle' },
    ),
  ];
  // The nearest walls need the captures' strikes: api-filled captures have none, and then no line is drawn.
  if (data.captures.some((c) => c.nearestCallWall !== null || c.nearestPutWall !== null)) {
    const dashed = (color: string) => ({ step: 'middle', lineStyle: { color, width: 1.5, type: 'dashed' } });
    series.push(
      line(
        nearestWallName('call', data.rangePct),
        palette.nearestCallWall,
        of((c) => c.nearestCallWall),
        dashed(palette.nearestCallWall),
      ),
      line(
        nearestWallName('put', data.rangePct),
        palette.nearestPutWall,
        of((c) => c.nearestPutWall),
        dashed(palette.nearestPutWall),
      ),
    );
  }
  return series;
}

export function sessionOption(data: SessionCaptures, look: Look): EChartsOption {
  const zone = look.timeZone ?? 'UTC';
  const strikes = data.captures.some((c) => c.nearestCallWall !== null || c.nearestPutWall !== null) ? '' : ' · nearest walls: no strikes held';
  const { option, palette } = baseOption(
    look,
    `${pairName(data)} · session ${data.sessionDate} · levels at each capture`,
    `${sessionText(data, zone)} · shaded: the regime at each capture${strikes}`,
  );
  const lines = [...spotSeries(data, palette), ...wallSeries(data, palette)];
  const legendData = [
    ...lines.map((l) =>
      l.name === INTRADAY_SPOT
        ? { name: INTRADAY_SPOT, icon: 'circle', itemStyle: { color: palette.background, borderColor: palette.spot, borderWidth: 2 } }
        : { name: l.name as string },
    ),
    ...REGIMES.map((regime) => ({ name: `${regime} regime`, itemStyle: { color: regime === 'negative' ? palette.put : palette.call, opacity: 0.35 } })),
  ];
  const below = legendBelowTitle(option);
  return {
    ...option,
    ...below,
    // ECharts lays the entries out by its own estimate of text width, up to 7% narrower than the chart
    // font draws it: "spot (intraday capture)" ran into the next marker with the default 10 px gap.
    // The gap is between rows too: the plot starts 10 px lower to keep its axis name clear of row two.
    legend: { ...(below.legend as object), data: legendData, itemGap: 20 },
    grid: { ...(below.grid as object), top: 150 },
    xAxis: {
      type: 'category',
      // Each capture's time of day in the display zone; the session's date is in the title.
      data: data.captures.map((c) => clockInZone(c.capturedAt, zone).slice(0, 5)),
      boundaryGap: true,
      name: zone === 'UTC' ? 'UTC' : captureTime(data.captures[0]!.capturedAt, zone).slice(17),
      ...axisLook(palette),
      splitLine: { show: false },
    },
    yAxis: [
      { type: 'value', scale: true, name: 'price', ...axisLook(palette) },
      { type: 'value', min: 0, max: 1, show: false },
    ],
    series: [
      ...lines,
      ...regimeBands(
        data.captures.map((c) => c.regime),
        palette,
      ),
    ],
  };
}
