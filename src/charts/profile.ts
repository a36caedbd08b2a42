// The GEX profile of one capture: call and put GEX by strike as bars (or net GEX as one bar), with
// vertical lines at spot, gamma flip and the call/put walls. Put GEX is stored non-negative
// (net = call - put): its bars are drawn below zero, as the dashboards do.
import type { EChartsOption, MarkLineComponentOption, SeriesOption } from 'echarts';
import { axisLook, baseOption } from './common.js';
import { captureTime, millions, pairName, price } from './format.js';
import type { Look, ProfileData } from './types.js';

export interface ProfileStyle {
  /** One bar of net GEX per strike instead of call and put bars. */
  net: boolean;
}

export function profileTitle(data: ProfileData): { title: string; subtitle: string } {
  const expiry = data.expiration === 'TOTAL' ? 'all expirations' : `expiration ${data.expiration}`;
  const asked = data.askedAt === undefined ? 'latest capture' : `as of ${captureTime(data.askedAt)}`;
  return {
    title: `${pairName(data)} · GEX by strike (${expiry})`,
    subtitle: `capture ${captureTime(data.capturedAt)} (${asked}) · regime ${data.regime ?? '-'} · spot ${price(data.spot)}`,
  };
}

export function profileOption(data: ProfileData, style: ProfileStyle, look: Look): EChartsOption {
  const { title, subtitle } = profileTitle(data);
  const { option, palette } = baseOption(look, title, subtitle);
  const bar = (name: string, color: string, pick: (s: ProfileData['strikes'][number]) => number | null): SeriesOption => ({
    type: 'bar',
    name,
    stack: 'gex',
    barMaxWidth: 18,
    itemStyle: { color },
    data: data.strikes.map((s) => [s.strike, millions(pick(s))]),
  });
  const series: SeriesOption[] = style.net
    ? [bar('net GEX', palette.net, (s) => s.netGex)]
    : [bar('call GEX', palette.call, (s) => s.callGex), bar('put GEX', palette.put, (s) => (s.putGex === null ? null : -s.putGex))];
  const first = series[0] as SeriesOption & { markLine?: MarkLineComponentOption };
  first.markLine = {
    silent: true,
    symbol: 'none',
    data: levelLines(data, palette),
  };
  const strikes = data.strikes.map((s) => s.strike);
  const lines = [data.spot, data.flip, data.callWall, data.putWall].filter((v): v is number => v !== null);
  return {
    ...option,
    grid: { left: 72, right: 72, top: 104 + 3 * LABEL_ROW, bottom: 64 },
    xAxis: {
      type: 'value',
      name: 'strike',
      nameLocation: 'middle',
      nameGap: 30,
      scale: true,
      min: Math.min(...strikes, ...lines),
      max: Math.max(...strikes, ...lines),
      ...axisLook(palette),
      splitLine: { show: false },
    },
    yAxis: { type: 'value', name: 'GEX, $M per 1% move', ...axisLook(palette) },
    series,
  };
}

const LABEL_ROW = 15;

interface LineSpec {
  name: string;
  value: number | null;
  color: string;
  type: 'solid' | 'dashed' | 'dotted';
  /** Label row above the plot: lines are often close (spot and flip), so each label has its own row. */
  row: number;
}

function levelLines(data: ProfileData, palette: { spot: string; flip: string; callWall: string; putWall: string }): MarkLineComponentOption['data'] {
  const specs: LineSpec[] = [
    { name: 'spot', value: data.spot, color: palette.spot, type: 'solid', row: 0 },
    { name: 'flip', value: data.flip, color: palette.flip, type: 'dashed', row: 1 },
    { name: 'call wall', value: data.callWall, color: palette.callWall, type: 'dotted', row: 2 },
    { name: 'put wall', value: data.putWall, color: palette.putWall, type: 'dotted', row: 3 },
  ];
  return specs
    .filter((s): s is LineSpec & { value: number } => s.value !== null)
    .map((s) => ({
      name: s.name,
      xAxis: s.value,
      lineStyle: { color: s.color, type: s.type, width: 1.5 },
      label: { formatter: `${s.name} ${price(s.value)}`, color: s.color, position: 'end', distance: 4 + s.row * LABEL_ROW },
    }));
}

/** The strikes within pct % of spot (all of them when spot is unknown). */
export function strikesInRange(data: ProfileData, pct: number): ProfileData {
  const spot = data.spot;
  if (spot === null || spot === 0) return data;
  return { ...data, strikes: data.strikes.filter((s) => Math.abs((s.strike - spot) / spot) * 100 <= pct) };
}
