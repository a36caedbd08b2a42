// What the report page's script reads: the data the page embeds (one entry per chart) and the
// formatters it shares with the static text. The Node side writes these shapes (report-html.ts) and
// the browser side reads them (report-client.ts): one definition, checked by both programs.
import type { EChartsOption } from 'echarts';

/** How the page's script formats a chart's tooltip: the value kind of each series by name. */
export interface TooltipSpec {
  trigger: 'axis' | 'item';
  /** The axis value's heading: a price (strikes) or the category text (dates, expirations). */
  header: 'strike' | 'text';
  /** usd: $M drawn, shown as "$3.48M"; signed: "+$3.48M"; price: "76,500"; regime: the band's name when set. */
  series: Record<string, 'usd' | 'signed' | 'price' | 'regime'>;
  /** A net GEX row computed from the call and put series (put drawn negative). */
  net?: [string, string];
}

export interface ChartSpec {
  width: number;
  height: number;
  tooltip: TooltipSpec;
  /** One option, or the frames of a slider (the last one drawn first). */
  option?: EChartsOption;
  frames?: EChartsOption[];
  labels?: string[];
}

/** The page's embedded data (`<script type="application/json" id="gexwh-data">`). */
export interface PageData {
  charts: Record<string, ChartSpec>;
}

/** The formatters of format.ts the page's script calls, their source inlined before it. */
export interface PageFormat {
  price(value: number | null): string;
  usdMillions(value: number | null, signed?: boolean): string;
}
