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
export function momentText(data: { askedAt?: string; closeOf?: string }): string {
  if (data.closeOf !== undefined) return `close of session ${data.closeOf}`;
  return data.askedAt === undefined ? 'latest capture' : `as of ${captureTime(data.askedAt)}`;
}

export const WALLS_NOTE = "walls: the API's largest +/- net-GEX strikes";

export function profileTitle(data: ProfileData): { title: string; subtitle: string } {
  const expiry = data.expiration === 'TOTAL' ? 'all expirations' : `expiration ${data.expiration}`;
  const { netGex, callGex, putGex } = data.totals;
  return {
    title: `${pairName(data)} · GEX by strike (${expiry}) · net ${usdMillions(netGex, true)} (calls ${usdMillions(callGex)}, puts ${usdMillions(putGex)})`,
    subtitle: `capture ${captureTime(data.capturedAt)} (${momentText(data)}) · regime ${data.regime ?? '-'} · spot ${price(data.spot)} · ${WALLS_NOTE}`,
  };
}

/** Label rows above the plot: lines are often close (spot and flip), so each label has its own row. */
const LABEL_ROW = 15;
const LABEL_ROWS = 4;
/** Title, subtitle and legend, one row each, above the label rows. */
const HEADER = 84;
export const PROFILE_GRID = { left: 72, right: 80, top: HEADER + LABEL_ROWS * LABEL_ROW + 8, bottom: 64 };

export function profileOption(data: ProfileData, style: ProfileStyle, look: Look): EChartsOption {
  const { title, subtitle } = profileTitle(data);
  const { option, palette } = baseOption(look, title, subtitle);
  const strikes = strikeAxisRange(data.strikes.map((s) => s.strike));
  const bars = style.net ? [netBars(data, palette)] : [callBars(data, palette, strikes), putBars(data, palette, strikes)];
  const cumulative = cumulativeLine(data, palette);
  (bars[0] as SeriesOption & { markLine?: MarkLineComponentOption }).markLine = { silent: true, symbol: 'none', data: levelLines(data, palette, strikes) };
  const [gexAxis, cumulativeAxis] = alignedZeroAxes([withHeadroom(barExtent(data, style)), extentOf(cumulative.data as [number, number | null][])]);
  return {
    ...option,
    legend: { ...(option.legend as object), top: 60, left: 16, right: 'auto' },
    grid: PROFILE_GRID,
    xAxis: {
      type: 'value',
      name: 'strike',
      nameLocation: 'middle',
      nameGap: 30,
      ...strikes,
      ...axisLook(palette),
      // The axis ends half a strike step beyond the outer bars: no label there, only the bars' own ticks.
      axisLabel: { ...(axisLook(palette).axisLabel as object), showMinLabel: false, showMaxLabel: false },
      splitLine: { show: false },
    },
    yAxis: [
      { type: 'value', name: 'GEX, $M per 1% move', ...gexAxis, ...axisLook(palette) },
      { type: 'value', name: 'cumulative net GEX, $M', ...cumulativeAxis, ...axisLook(palette), splitLine: { show: false } },
    ],
    series: [...bars, cumulative],
  };
}

type Bar = SeriesOption & { markPoint?: MarkPointComponentOption };

function bars(name: string, color: string, data: ProfileData, pick: (s: StrikeRow) => number | null): Bar {
  return { type: 'bar', name, stack: 'gex', barMaxWidth: 18, itemStyle: { color }, data: data.strikes.map((s) => [s.strike, millions(pick(s))]) } as Bar;
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

function cumulativeLine(data: ProfileData, palette: Palette): SeriesOption {
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
  row: number;
}

function levelLines(data: ProfileData, palette: Palette, axis: Extent): MarkLineComponentOption['data'] {
  const specs: LineSpec[] = [
    { name: 'spot', value: data.spot, color: palette.spot, type: 'solid', row: 0 },
    { name: 'flip', value: data.flip, color: palette.flip, type: 'dashed', row: 1 },
    { name: 'call wall', value: data.callWall, color: palette.callWall, type: 'dotted', row: 2 },
    { name: 'put wall', value: data.putWall, color: palette.putWall, type: 'dotted', row: 3 },
  ];
  return specs.filter((s): s is LineSpec & { value: number } => s.value !== null).map((s) => levelLine(s, data.spot, axis));
}

/** "flip 78,070.77 (-0.30%)": a level's value and its distance from spot. */
export function levelText(name: string, value: number, spot: number | null): string {
  return name === 'spot' || spot === null || spot === 0 ? `${name} ${price(value)}` : `${name} ${price(value)} (${distancePct(value, spot)})`;
}

/**
 * A level within the strike axis is a vertical line labelled at its row; one beyond it is only its
 * label at that row, flush with the edge it lies past, with an arrow pointing out ("call wall
 * 120,000 (+57.4%) →"): drawn on an invisible line at the edge so the rows stay aligned.
 */
export function levelLine(s: LineSpec & { value: number }, spot: number | null, axis: Extent): NonNullable<MarkLineComponentOption['data']>[number] {
  const text = levelText(s.name, s.value, spot);
  const label = { color: s.color, position: 'end' as const, distance: 4 + s.row * LABEL_ROW };
  if (s.value > axis.max) return { name: s.name, xAxis: axis.max, lineStyle: { width: 0 }, label: { ...label, formatter: `${text} →`, align: 'right' } };
  if (s.value < axis.min) return { name: s.name, xAxis: axis.min, lineStyle: { width: 0 }, label: { ...label, formatter: `← ${text}`, align: 'left' } };
  return { name: s.name, xAxis: s.value, lineStyle: { color: s.color, type: s.type, width: 1.5 }, label: { ...label, formatter: text } } as NonNullable<MarkLineComponentOption['data']>[number];
}

/** The strikes within pct % of spot (all of them when spot is unknown). */
export function strikesInRange(data: ProfileData, pct: number): ProfileData {
  const spot = data.spot;
  if (spot === null || spot === 0) return data;
  return { ...data, strikes: data.strikes.filter((s) => Math.abs((s.strike - spot) / spot) * 100 <= pct) };
}
