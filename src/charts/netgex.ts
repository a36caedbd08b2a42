// Net GEX and spot at each session close (levels_close): net GEX as bars (green above zero, red
// below) on the left axis, spot as a line on the right, so a trader sees the gamma regime build and
// fade against price over the sessions.
import type { EChartsOption } from 'echarts';
import { axisLook, baseOption } from './common.js';
import { millions, pairName, usdMillions } from './format.js';
import { rangeText } from './levels.js';
import type { Look, SeriesData } from './types.js';

export function netGexOption(data: SeriesData, look: Look): EChartsOption {
  const last = data.closes[data.closes.length - 1];
  const { option, palette } = baseOption(
    look,
    `${pairName(data)} · net GEX and spot at each session close`,
    `${rangeText(data)} · latest close: net GEX ${usdMillions(last?.netGex ?? null, true)}`,
  );
  return {
    ...option,
    xAxis: { type: 'category', data: data.closes.map((c) => c.sessionDate), ...axisLook(palette), splitLine: { show: false } },
    yAxis: [
      { type: 'value', name: 'net GEX, $M per 1%', ...axisLook(palette) },
      { type: 'value', name: 'spot', scale: true, ...axisLook(palette), splitLine: { show: false } },
    ],
    series: [
      {
        type: 'bar',
        name: 'net GEX',
        barMaxWidth: 28,
        itemStyle: { color: palette.call },
        data: data.closes.map((c) => ({ value: millions(c.netGex), itemStyle: { color: (c.netGex ?? 0) < 0 ? palette.put : palette.call } })),
      },
      {
        type: 'line',
        name: 'spot (close)',
        yAxisIndex: 1,
        data: data.closes.map((c) => c.spot),
        symbol: 'circle',
        symbolSize: 5,
        itemStyle: { color: palette.spot },
        lineStyle: { color: palette.spot, width: 2 },
      },
    ],
  };
}
