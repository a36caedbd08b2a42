// The captured term structure: net GEX and open interest by expiration (venue TOTAL) of one capture.
import type { EChartsOption } from 'echarts';
import { axisLook, baseOption } from './common.js';
import { captureTime, millions, pairName, price } from './format.js';
import type { Look, TermData } from './types.js';

export function termOption(data: TermData, look: Look): EChartsOption {
  const zone = look.timeZone ?? 'UTC';
  const asked = data.askedAt === undefined ? 'latest capture' : `as of ${captureTime(data.askedAt, zone)}`;
  const { option, palette } = baseOption(
    look,
    `${pairName(data)} · GEX and open interest by expiration`,
    `capture ${captureTime(data.capturedAt, zone)} (${asked}) · spot ${price(data.spot)} · ${data.rows.length} expirations`,
  );
  const labels = data.rows.map((r) => r.expirationDate ?? r.expiration);
  return {
    ...option,
    xAxis: { type: 'category', data: labels, ...axisLook(palette), splitLine: { show: false } },
    yAxis: [
      { type: 'value', name: 'net GEX, $M per 1%', ...axisLook(palette) },
      { type: 'value', name: 'open interest, $M', ...axisLook(palette), splitLine: { show: false } },
    ],
    series: [
      {
        type: 'bar',
        name: 'net GEX',
        barMaxWidth: 28,
        data: data.rows.map((r) => ({ value: millions(r.totalGex), itemStyle: { color: (r.totalGex ?? 0) < 0 ? palette.put : palette.call } })),
        itemStyle: { color: palette.call },
      },
      {
        type: 'line',
        name: 'open interest',
        yAxisIndex: 1,
        data: data.rows.map((r) => millions(r.oiUsd)),
        itemStyle: { color: palette.oi },
        lineStyle: { color: palette.oi, width: 2 },
        symbol: 'circle',
        symbolSize: 6,
      },
    ],
  };
}
