// Open interest by strike of one capture: call OI above zero and put OI below, in contracts, with a
// line at spot and the largest call and put OI strikes marked (where positioning is heaviest).
import type { BarSeriesOption, EChartsOption, MarkLineComponentOption, MarkPointComponentOption } from 'echarts';
import { strikeAxisRange } from './axes.js';
import { axisLook, baseOption } from './common.js';
import { captureTime, count, pairName, price } from './format.js';
import { largestBar, largestMarker, levelMarks, momentText, PROFILE_GRID, SIDE_NAME, strikeAxis } from './profile.js';
import type { Look, ProfileData, StrikeRow } from './types.js';

export function oiTitle(data: ProfileData, zone = 'UTC'): { title: string; subtitle: string } {
  const expiry = data.expiration === 'TOTAL' ? 'all expirations' : `expiration ${data.expiration}`;
  const { callOi, putOi } = data.totals;
  const ratio = callOi !== null && putOi !== null && callOi > 0 ? ` · put/call ${(putOi / callOi).toFixed(2)}` : '';
  return {
    title: `${pairName(data)} · open interest by strike (${expiry}) · calls ${count(callOi)}, puts ${count(putOi)} contracts${ratio}`,
    subtitle: `capture ${captureTime(data.capturedAt, zone)} (${momentText(data, zone)}) · spot ${price(data.spot)}`,
  };
}

export function oiOption(data: ProfileData, look: Look): EChartsOption {
  const { title, subtitle } = oiTitle(data, look.timeZone);
  const { option, palette } = baseOption(look, title, subtitle);
  const strikes = strikeAxisRange(data.strikes.map((s) => s.strike));
  type Bar = BarSeriesOption & { markPoint?: MarkPointComponentOption; markLine?: MarkLineComponentOption };
  const bar = (name: string, color: string, pick: (s: StrikeRow) => number | null, sign: 1 | -1): Bar => {
    const series = {
      type: 'bar',
      name,
      stack: 'oi',
      barMaxWidth: 18,
      itemStyle: { color },
      data: data.strikes.map((s) => [s.strike, signed(pick(s), sign)]),
    } as Bar;
    const largest = largestBar(data.strikes, pick);
    if (largest) series.markPoint = largestMarker(`largest ${name}`, { strike: largest.strike, y: sign * largest.value }, sign, palette, strikes);
    return series;
  };
  const calls = bar('call OI', palette.call, (s) => s.callOi, 1);
  const puts = bar('put OI', palette.put, (s) => s.putOi, -1);
  const marks = levelMarks([{ name: 'spot', value: data.spot, color: palette.spot, type: 'solid', row: 0 }], data.spot, strikes, look);
  calls.markLine = { silent: true, symbol: 'none', data: marks.lines };
  // A spot beyond the strikes (a range too narrow to hold one) is an arrow at the edge.
  puts.markPoint = { ...puts.markPoint, data: [...(puts.markPoint?.data ?? []), ...marks.edges] };
  return {
    ...option,
    legend: { ...(option.legend as object), top: 60, left: 16, right: 'auto' },
    grid: PROFILE_GRID,
    xAxis: strikeAxis(strikes, palette),
    yAxis: { type: 'value', name: 'open interest, contracts', ...SIDE_NAME, ...axisLook(palette) },
    series: [calls, puts],
  };
}

function signed(value: number | null, sign: 1 | -1): number | null {
  return value === null ? null : sign * value;
}
