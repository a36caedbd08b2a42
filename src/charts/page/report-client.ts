// The report page's script, run in the browser (a script, not a module: it is inlined into the page
// after the formatters it calls and the ECharts bundle). It redraws each static SVG chart with
// ECharts from the same option once the embedded font is ready (ECharts measures text as it lays
// out), with tooltips formatted by the same functions as the static text, and a slider through the
// profile's frames.

type ChartSpec = import('./chart-spec.js').ChartSpec;
type TooltipSpec = import('./chart-spec.js').TooltipSpec;
type PageData = import('./chart-spec.js').PageData;
type Option = import('echarts').EChartsOption;
type Chart = import('echarts').ECharts;
type ValueKind = TooltipSpec['series'][string];

declare const echarts: typeof import('echarts');
// Inlined before this script from format.ts, so the tooltips read as the static tables do.
declare const price: import('./chart-spec.js').PageFormat['price'];
declare const usdMillions: import('./chart-spec.js').PageFormat['usdMillions'];

// Merged into the DOM's Window: what the page publishes.
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- a declaration merge, used through `window`
interface Window {
  /** Each chart as drawn, by its element's id (the browser tests read them). */
  gexwhCharts: Record<string, Chart>;
  /** Set once every chart is drawn. */
  gexwhReady: boolean;
}

/** The part of ECharts' tooltip parameters the formatters read. */
interface TooltipParam {
  value: unknown;
  name: string;
  seriesName?: string;
  marker?: unknown;
  axisValue?: unknown;
  axisValueLabel?: string;
}

function valueText(kind: ValueKind | undefined, v: unknown): string {
  if (v === null || v === undefined || v === '-' || isNaN(Number(v))) return '-';
  if (kind === 'usd') return usdMillions(Number(v) * 1e6);
  if (kind === 'signed') return usdMillions(Number(v) * 1e6, true);
  return price(Number(v));
}

/** The y value of a point drawn as a number, an [x, y] pair or an object with a value. */
function yOf(p: TooltipParam): unknown {
  let v = p.value;
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) v = (v as { value?: unknown }).value;
  return Array.isArray(v) ? (v as unknown[])[1] : v;
}

// The tooltip is HTML that ECharts places as it is: series names and values are the page's own
// (the option's names, numbers formatted here), the marker ECharts' own span.
function row(marker: unknown, name: string, text: string): string {
  return `<div>${typeof marker === 'string' ? marker : ''}${name}<b style="float:right;margin-left:18px">${text}</b></div>`;
}

/** One series' rows of an axis tooltip; `values` collects the y values seen so far, by series name. */
function seriesRows(spec: TooltipSpec, p: TooltipParam, values: Record<string, unknown>): string {
  const name = p.seriesName ?? '';
  const kind = spec.series[name];
  const y = yOf(p);
  values[name] = y;
  if (kind === 'regime') return y === 1 ? row('', 'regime', name.replace(' regime', '')) : '';
  let text = kind === undefined ? '' : row(p.marker, name, valueText(kind, y));
  // Net GEX right under call and put: their sum, the put drawn negative.
  const call = spec.net === undefined ? undefined : values[spec.net[0]];
  if (spec.net !== undefined && name === spec.net[1] && call != null && y != null) {
    text += row('', 'net GEX', valueText('signed', Number(call) + Number(y)));
  }
  return text;
}

function axisTooltip(spec: TooltipSpec): (params: TooltipParam[]) => string {
  return (params) => {
    const first = params[0];
    if (first === undefined) return '';
    const x = Array.isArray(first.value) ? (first.value as unknown[])[0] : first.axisValue;
    const heading = spec.header === 'strike' ? `strike ${price(Number(x))}` : (first.axisValueLabel ?? '');
    const values: Record<string, unknown> = {};
    return `<div><b>${heading}</b></div>${params.map((p) => seriesRows(spec, p, values)).join('')}`;
  };
}

function itemTooltip(spec: TooltipSpec): (p: TooltipParam) => string {
  return (p) => {
    const kind = spec.series[p.seriesName ?? ''];
    const v = p.value;
    if (!Array.isArray(v)) return `<div><b>${p.name}</b></div>${row(p.marker, p.seriesName ?? '', valueText(kind, v))}`;
    const [x, strike, value] = v as unknown[];
    return `<div><b>${String(x)}</b></div>${row(p.marker, p.seriesName ?? '', `strike ${price(Number(strike))} · ${valueText(kind, value)}`)}`;
  };
}

function withTooltip(option: Option, spec: TooltipSpec): Option {
  const formatter = spec.trigger === 'item' ? itemTooltip(spec) : axisTooltip(spec);
  // ECharts' formatter type is a union over every tooltip shape; the spec's trigger picks the one it gets.
  const tooltip = { ...(option.tooltip as object), trigger: spec.trigger, formatter: formatter as unknown as () => string };
  return { ...option, tooltip };
}

function drawChart(id: string, spec: ChartSpec): void {
  const el = document.getElementById(id);
  if (el === null) return;
  el.innerHTML = '';
  const chart = echarts.init(el, null, { renderer: 'svg', width: spec.width, height: spec.height });
  const frames = spec.frames;
  const first = frames === undefined ? spec.option : frames[frames.length - 1];
  if (first !== undefined) chart.setOption(withTooltip(first, spec.tooltip));
  window.gexwhCharts[id] = chart;
  const slider = document.getElementById(`${id}-slider`);
  const label = document.getElementById(`${id}-label`);
  if (frames === undefined || !(slider instanceof HTMLInputElement) || label === null) return;
  slider.addEventListener('input', () => {
    const i = Number(slider.value);
    const frame = frames[i];
    if (frame !== undefined) chart.setOption(withTooltip(frame, spec.tooltip), { notMerge: true });
    label.textContent = spec.labels?.[i] ?? '';
  });
}

function drawAll(data: PageData): void {
  for (const [id, spec] of Object.entries(data.charts)) drawChart(id, spec);
  window.gexwhReady = true;
}

function start(): void {
  const data = JSON.parse(document.getElementById('gexwh-data')?.textContent ?? '{"charts":{}}') as PageData;
  document.documentElement.className += ' js';
  window.gexwhCharts = {};
  const draw = (): void => drawAll(data);
  // The font first: ECharts measures the text it lays out.
  const fonts = 'fonts' in document ? document.fonts.load('12px Inter') : Promise.resolve();
  fonts.then(draw, draw);
}

start();
