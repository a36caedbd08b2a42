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

export function axisLook(palette: Palette): Record<string, unknown> {
  return {
    axisLine: { lineStyle: { color: palette.axis } },
    axisLabel: { color: palette.subtext, fontFamily: FONT_FAMILY },
    splitLine: { lineStyle: { color: palette.grid } },
    nameTextStyle: { color: palette.subtext, fontFamily: FONT_FAMILY },
  };
}
