// The GEX profile of one capture: call and put GEX by strike as bars (or net GEX as one bar), the
// cumulative net GEX from the lowest strike up as a line on a second axis (where it crosses zero is
// the dashboards' reading of the flip), and vertical lines at spot, gamma flip and the API's walls,
// each labelled with its distance from spot. Put GEX is stored non-negative (net = call - put): its
// bars are drawn below zero, as the dashboards do. The strike axis fits the bars; a level beyond them
// is an arrow at the edge with its value, so one far wall cannot squash the bars into a corner.
import type { EChartsOption, MarkLineComponentOption, MarkPointComponentOption, SeriesOption } from 'echarts';
import { alignedZeroAxes, strikeAxisRange, type Extent } from './axes.js';
import { axisLook, baseOption } from './common.js';
import { captureTime, distancePct, millions, pairName, price, usdMillions } from './format.js';
import type { Palette } from './theme.js';
import type { Look, ProfileData, StrikeRow } from './types.js';

export interface ProfileStyle {
  /** One bar of net GEX per strike instead of call and put bars. */
  net: boolean;
}

/** What the subtitle says the capture is: the latest, the one as of a time asked, or a session's close. */
export function momentText(data: { askedAt?: string; closeOf?: string; intradayOf?: string }, zone = 'UTC'): string {
  if (data.intradayOf !== undefined) return `intraday capture of session ${data.intradayOf}, not a close`;
  if (data.closeOf !== undefined) return `close of session ${data.closeOf}`;
  return data.askedAt === undefined ? 'latest capture' : `as of ${captureTime(data.askedAt, zone)}`;
}

export const WALLS_NOTE = "API walls: the chain's largest +/- net-GEX strikes";

/** "nearest call wall (±10%)": the name says the rule, apart from the API's walls. */
export function nearestWallName(side: 'call' | 'put', rangePct: number): string {
  return `nearest ${side} wall (±${rangePct}%)`;
}

export const API_CALL_WALL = 'API call wall (p1)';
export const API_PUT_WALL = 'API put wall (n1)';

export function profileTitle(data: ProfileData, zone = 'UTC'): { title: string; subtitle: string } {
  const expiry = data.expiration === 'TOTAL' ? 'all expirations' : `expiration ${data.expiration}`;
  const { netGex, callGex, putGex } = data.totals;
  return {
    title: `${pairName(data)} · GEX by strike (${expiry}) · net ${usdMillions(netGex, true)} (calls ${usdMillions(callGex)}, puts ${usdMillions(putGex)})`,
    subtitle: `capture ${captureTime(data.capturedAt, zone)} (${momentText(data, zone)}) · regime ${data.regime ?? '-'} · spot ${price(data.spot)} · ${WALLS_NOTE}`,
  };
}

/** The height of one level label's row above the plot. */
const LABEL_ROW = 15;
const LABEL_ROWS = 6;
/** Title, subtitle and legend, one row each, above the label rows. */
const HEADER = 84;
export const PROFILE_GRID = { left: 72, right: 80, top: HEADER + LABEL_ROWS * LABEL_ROW + 8, bottom: 64 };
/** A value axis's name along its side: above the plot it would sit among the level labels. */
export const SIDE_NAME = { nameLocation: 'middle', nameRotate: 90, nameGap: 48 } as const;

export function profileOption(data: ProfileData, style: ProfileStyle, look: Look): EChartsOption {
  const { title, subtitle } = profileTitle(data, look.timeZone);
  const { option, palette } = baseOption(look, title, subtitle);
  const strikes = strikeAxisRange(data.strikes.map((s) => s.strike));
  const bars = style.net ? [netBars(data, palette)] : [callBars(data, palette, strikes), putBars(data, palette, strikes)];
  const cumulative = cumulativeLine(data, palette);
  const marks = levelMarks(levelSpecs(data, palette), data.spot, strikes, look);
  (bars[0] as SeriesOption & { markLine?: MarkLineComponentOption }).markLine = { silent: true, symbol: 'none', data: marks.lines };
  cumulative.markPoint = { silent: true, data: marks.edges };
  const [gexAxis, cumulativeAxis] = alignedZeroAxes([withHeadroom(barExtent(data, style)), extentOf(cumulative.data as [number, number | null][])]);
  return {
    ...option,
    legend: { ...(option.legend as object), top: 60, left: 16, right: 'auto' },
    grid: PROFILE_GRID,
    xAxis: strikeAxis(strikes, palette),
    yAxis: [
      { type: 'value', name: 'GEX, $M per 1% move', ...SIDE_NAME, ...gexAxis, ...axisLook(palette) },
      { type: 'value', name: 'cumulative net GEX, $M', ...SIDE_NAME, ...cumulativeAxis, ...axisLook(palette), splitLine: { show: false } },
    ],
    series: [...bars, cumulative],
  };
}

/**
 * From the first strike to the last: ECharts draws bars on a value axis half the smallest strike
 * step in from each end, so the outer bars are whole and the axis ends just beyond them.
 */
export function strikeAxis(strikes: Extent, palette: Palette): Record<string, unknown> {
  return {
    type: 'value',
    name: 'strike',
    nameLocation: 'middle',
    nameGap: 30,
    ...strikes,
    ...axisLook(palette),
    // The ends are the outer strikes, which have bars of their own: their labels would crowd the ticks.
    axisLabel: { ...(axisLook(palette).axisLabel as object), showMinLabel: false, showMaxLabel: false },
    splitLine: { show: false },
  };
}

type Bar = SeriesOption & { markPoint?: MarkPointComponentOption };

function bars(name: string, color: string, data: ProfileData, pick: (s: StrikeRow) => number | null): Bar {
  return { type: 'bar', name, stack: 'gex', barMaxWidth: 18, itemStyle: { color }, data: data.strikes.map((s) => [s.strike, millions(pick(s))]) };
}

function callBars(data: ProfileData, palette: Palette, axis: Extent): Bar {
  const series = bars('call GEX', palette.call, data, (s) => s.callGex);
  const largest = largestBar(data.strikes, (s) => s.callGex);
  if (largest) series.markPoint = largestMarker('largest call GEX', { strike: largest.strike, y: millions(largest.value) as number }, 1, palette, axis);
  return series;
}

function putBars(data: ProfileData, palette: Palette, axis: Extent): Bar {
  const series = bars('put GEX', palette.put, data, (s) => (s.putGex === null ? null : -s.putGex));
  const largest = largestBar(data.strikes, (s) => s.putGex);
  if (largest) series.markPoint = largestMarker('largest put GEX', { strike: largest.strike, y: -(millions(largest.value) as number) }, -1, palette, axis);
  return series;
}

function netBars(data: ProfileData, palette: Palette): Bar {
  return bars('net GEX', palette.net, data, (s) => s.netGex);
}

function cumulativeLine(data: ProfileData, palette: Palette): SeriesOption & { markPoint?: MarkPointComponentOption } {
  return {
    type: 'line',
    name: 'cumulative net GEX',
    yAxisIndex: 1,
    symbol: 'none',
    z: 3,
    itemStyle: { color: palette.cumulative },
    lineStyle: { color: palette.cumulative, width: 2 },
    data: data.strikes.map((s) => [s.strike, millions(s.cumulativeNetGex)]),
  };
}

/** The strike of the largest bar by `pick` (the lower strike on a tie), drawn in range. */
export function largestBar(strikes: StrikeRow[], pick: (s: StrikeRow) => number | null): { strike: number; value: number } | undefined {
  let best: { strike: number; value: number } | undefined;
  for (const s of strikes) {
    const value = pick(s);
    if (value !== null && value > 0 && (best === undefined || value > best.value)) best = { strike: s.strike, value };
  }
  return best;
}

/**
 * A small triangle just beyond the end (y, as drawn) of the bar at strike, pointing at it, named
 * beside it on the side with more room (towards the middle of the strike axis).
 */
export function largestMarker(name: string, bar: { strike: number; y: number }, direction: 1 | -1, palette: Palette, axis: Extent): MarkPointComponentOption {
  const { strike, y } = bar;
  return {
    silent: true,
    symbol: 'triangle',
    symbolSize: 9,
    symbolRotate: direction === 1 ? 180 : 0,
    symbolOffset: [0, direction === 1 ? -8 : 8],
    itemStyle: { color: palette.text },
    label: {
      show: true,
      position: strike < (axis.min + axis.max) / 2 ? 'right' : 'left',
      distance: 4,
      fontSize: 11,
      color: palette.text,
      backgroundColor: palette.background,
      padding: [1, 3],
      formatter: `${name} ${price(strike)}`,
    },
    data: [{ name, coord: [strike, y] }],
  };
}

function barExtent(data: ProfileData, style: ProfileStyle): Extent {
  const values = data.strikes.flatMap((s) => (style.net ? [s.netGex] : [s.callGex, s.putGex === null ? null : -s.putGex]));
  return extentOf(values.map((v) => [0, millions(v)]));
}

/** Room beyond the longest bars for their markers, below the level labels above the plot. */
function withHeadroom(extent: Extent): Extent {
  const room = (extent.max - extent.min) * 0.12;
  return { min: extent.min < 0 ? extent.min - room : 0, max: extent.max > 0 ? extent.max + room : 0 };
}

function extentOf(points: [number, number | null][]): Extent {
  const values = points.map((p) => p[1]).filter((v): v is number => v !== null);
  return { min: Math.min(0, ...values), max: Math.max(0, ...values) };
}

export interface LineSpec {
  name: string;
  value: number | null;
  color: string;
  type: 'solid' | 'dashed' | 'dotted';
  /** Label row above the plot: lines are often close (spot and flip), so each label has its own row. */
  row: number;
}

function levelSpecs(data: ProfileData, palette: Palette): LineSpec[] {
  return [
    { name: 'spot', value: data.spot, color: palette.spot, type: 'solid', row: 0 },
    { name: 'flip', value: data.flip, color: palette.flip, type: 'dashed', row: 1 },
    { name: API_CALL_WALL, value: data.callWall, color: palette.callWall, type: 'dotted', row: 2 },
    { name: API_PUT_WALL, value: data.putWall, color: palette.putWall, type: 'dotted', row: 3 },
    ...(data.nearestWalls === undefined
      ? []
      : [
          {
            name: nearestWallName('call', data.nearestWalls.rangePct),
            value: data.nearestWalls.call,
            color: palette.nearestCallWall,
            type: 'dashed',
            row: 4,
          } as const,
          {
            name: nearestWallName('put', data.nearestWalls.rangePct),
            value: data.nearestWalls.put,
            color: palette.nearestPutWall,
            type: 'dashed',
            row: 5,
          } as const,
        ]),
  ];
}

/** "flip 78,070.77 (-0.30%)": a level's value and its distance from spot. */
export function levelText(name: string, value: number, spot: number | null): string {
  return name === 'spot' || spot === null || spot === 0 ? `${name} ${price(value)}` : `${name} ${price(value)} (${distancePct(value, spot)})`;
}

type LineItem = NonNullable<MarkLineComponentOption['data']>[number];
type PointItem = NonNullable<MarkPointComponentOption['data']>[number];

export interface LevelMarks {
  /** Levels within the strikes: a vertical line each, labelled at its row above the plot. */
  lines: LineItem[];
  /** Levels beyond them: only the label, at its row, flush with the edge it lies past. */
  edges: PointItem[];
}

/**
 * A level within the strikes is a vertical line; one beyond them is its label at the plot's edge with
 * an arrow pointing out ("call wall 120,000 (+57.4%) →"), placed in pixels: the strike scale does not
 * reach the plot's edges (the outer bars' half step), and a far level must not stretch it.
 */
export function levelMarks(specs: LineSpec[], spot: number | null, axis: Extent, look: Look): LevelMarks {
  const marks: LevelMarks = { lines: [], edges: [] };
  for (const s of specs) {
    if (s.value === null) continue;
    const text = levelText(s.name, s.value, spot);
    const distance = 4 + s.row * LABEL_ROW;
    if (s.value >= axis.min && s.value <= axis.max) {
      marks.lines.push({
        name: s.name,
        xAxis: s.value,
        lineStyle: { color: s.color, type: s.type, width: 1.5 },
        label: { formatter: text, color: s.color, position: 'end', distance },
      });
      continue;
    }
    const right = s.value > axis.max;
    marks.edges.push({
      name: s.name,
      x: right ? look.width - PROFILE_GRID.right : PROFILE_GRID.left,
      // The centre of a line label's text at this row (ECharts sets it 6 px above its anchor).
      y: PROFILE_GRID.top - distance - 6,
      symbol: 'circle',
      symbolSize: 0,
      label: { show: true, formatter: right ? `${text} →` : `← ${text}`, color: s.color, position: right ? 'left' : 'right', distance: 0, fontSize: 12 },
    });
  }
  return marks;
}

/** The strikes within pct % of spot (all of them when spot is unknown). */
export function strikesInRange(data: ProfileData, pct: number): ProfileData {
  const spot = data.spot;
  if (spot === null || spot === 0) return data;
  return { ...data, strikes: data.strikes.filter((s) => Math.abs((s.strike - spot) / spot) * 100 <= pct) };
}
