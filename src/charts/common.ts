// The parts every chart shares: background, title, fonts, axes' look, tooltip, legend.
import type { EChartsOption } from 'echarts';
import { FONT_FAMILY, paletteOf, type Palette } from './theme.js';
import type { Look } from './types.js';

export function baseOption(look: Look, title: string, subtitle: string): { option: EChartsOption; palette: Palette } {
  const palette = paletteOf(look.theme);
  const option: EChartsOption = {
    // Animation off: a static SVG must be the final frame, and the browser draws it at once too.
    animation: false,
    backgroundColor: palette.background,
    textStyle: { fontFamily: FONT_FAMILY, color: palette.text },
    title: {
      text: title,
      subtext: subtitle,
      left: 16,
      top: 10,
      textStyle: { fontSize: 16, fontWeight: 'normal', color: palette.text, fontFamily: FONT_FAMILY },
      subtextStyle: { fontSize: 12, color: palette.subtext, fontFamily: FONT_FAMILY },
    },
    legend: { top: 14, right: 16, textStyle: { color: palette.text, fontFamily: FONT_FAMILY } },
    tooltip: { trigger: 'axis', confine: true },
    grid: { left: 72, right: 72, top: 104, bottom: 64 },
  };
  return { option, palette };
}

/**
 * The legend below the subtitle, wrapping to a second row when it must, and the plot below it: the
 * series charts' entries (closes, intraday, regimes) do not fit beside the title.
 */
export function legendBelowTitle(option: EChartsOption): Pick<EChartsOption, 'legend' | 'grid'> {
  return { legend: { ...(option.legend as object), top: 56, left: 16, right: 16 }, grid: { ...(option.grid as object), top: 140 } };
}

export function axisLook(palette: Palette): Record<string, unknown> {
  return {
    axisLine: { lineStyle: { color: palette.axis } },
    axisLabel: { color: palette.subtext, fontFamily: FONT_FAMILY },
    splitLine: { lineStyle: { color: palette.grid } },
    nameTextStyle: { color: palette.subtext, fontFamily: FONT_FAMILY },
  };
}
