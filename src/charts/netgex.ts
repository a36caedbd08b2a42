// Net GEX and spot at each session close (levels_close): net GEX as bars (green above zero, red
// below) on the left axis, spot as a line on the right, so a trader sees the gamma regime build and
// fade against price over the sessions. A session whose last capture held is intraday is drawn
// hollow, under its own legend entry, and the subtitle's "latest close" is the latest real close.
import type { EChartsOption, SeriesOption } from 'echarts';
import { axisLook, baseOption, legendBelowTitle } from './common.js';
import { captureTime, millions, pairName, usdMillions } from './format.js';
import { intradayName, isIntraday } from './intraday.js';
import { intradaySpotSeries, rangeText } from './levels.js';
import type { Palette } from './theme.js';
import type { Look, SeriesData } from './types.js';

/** "latest close 2026-03-15: net GEX -$1.81M · intraday 2026-03-16 14:00 UTC: net GEX +$1.44M". */
export function netGexSubtitle(data: SeriesData, zone = 'UTC'): string {
  const lastClose = data.closes.filter((c) => !isIntraday(c)).at(-1);
  const last = data.closes.at(-1);
  const close = lastClose ? `latest close ${lastClose.sessionDate}: net GEX ${usdMillions(lastClose.netGex, true)}` : 'no close yet';
  const intraday = last && isIntraday(last) ? ` · intraday ${captureTime(last.capturedAt, zone)}: net GEX ${usdMillions(last.netGex, true)}` : '';
  return `${rangeText(data, intraday === '', zone)} · ${close}${intraday}`;
}

const barColor = (value: number | null, palette: Palette) => ((value ?? 0) < 0 ? palette.put : palette.call);

/** The intraday bars, hollow with a dashed border, in the same slot as a close's bar would be. */
function intradayBars(data: SeriesData, palette: Palette, zone = 'UTC'): SeriesOption | undefined {
  const name = intradayName(data, zone);
  if (name === undefined) return undefined;
  return {
    type: 'bar',
    name: `net GEX, ${name}`,
    barMaxWidth: 28,
    barGap: '-100%',
    itemStyle: { color: palette.background, borderColor: palette.call, borderWidth: 2, borderType: 'dashed' },
    data: data.closes.map((c) =>
      isIntraday(c)
        ? {
            value: millions(c.netGex),
            itemStyle: { color: palette.background, borderColor: barColor(c.netGex, palette), borderWidth: 2, borderType: 'dashed' },
          }
        : { value: null },
    ),
  };
}

export function netGexOption(data: SeriesData, look: Look): EChartsOption {
  const { option, palette } = baseOption(look, `${pairName(data)} · net GEX and spot at each session close`, netGexSubtitle(data, look.timeZone));
  const hollow = intradayBars(data, palette, look.timeZone);
  const spot = intradaySpotSeries(data, palette, 1, look.timeZone);
  return {
    ...option,
    ...legendBelowTitle(option),
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
        data: data.closes.map((c) => ({ value: isIntraday(c) ? null : millions(c.netGex), itemStyle: { color: barColor(c.netGex, palette) } })),
      },
      ...(hollow ? [hollow] : []),
      {
        type: 'line',
        name: 'spot (close)',
        yAxisIndex: 1,
        data: data.closes.map((c) => (isIntraday(c) ? null : c.spot)),
        symbol: 'circle',
        symbolSize: 5,
        itemStyle: { color: palette.spot },
        lineStyle: { color: palette.spot, width: 2 },
      },
      ...(spot ? [spot] : []),
    ],
  };
}
