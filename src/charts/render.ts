// Draws an ECharts option server-side to SVG text, and SVG to PNG with resvg. Both are
// deterministic: the SVG's generated class names and ids (zr3-cls-7, zr3-c1 clip paths, gradients)
// are renumbered in order of appearance (zrender numbers them with process-wide counters), and resvg sees only the font shipped in assets/fonts,
// never the machine's fonts. An SVG file carries the glyphs it uses (font.ts), so a browser draws them too.
import { createRequire } from 'node:module';
import type * as ResvgModule from '@resvg/resvg-js';
import type * as EchartsModule from 'echarts';
import type { EChartsOption } from 'echarts';
import { fontPath } from './font.js';
import type { Look } from './types.js';

// Loaded on first use: the two take half a second to load, which every other command (the nightly
// sync first) would otherwise pay at start.
const load = createRequire(import.meta.url);
let echartsModule: typeof EchartsModule | undefined;
let resvgModule: typeof ResvgModule | undefined;
const echarts = (): typeof EchartsModule => (echartsModule ??= load('echarts') as typeof EchartsModule);
const resvg = (): typeof ResvgModule => (resvgModule ??= load('@resvg/resvg-js') as typeof ResvgModule);

export function renderSvg(option: EChartsOption, look: Look, idPrefix = 'g'): string {
  const chart = echarts().init(null, null, { renderer: 'svg', ssr: true, width: look.width, height: look.height });
  try {
    chart.setOption(option);
    return stableClassNames(chart.renderToSVGString(), idPrefix);
  } finally {
    chart.dispose();
  }
}

/** `zr7-cls-42`, `zr7-c3` … → `g-0`, `g-1` … by first appearance; the prefix keeps the charts of one page apart. */
export function stableClassNames(svg: string, prefix: string): string {
  const names = new Map<string, string>();
  return svg.replace(/zr\d+-(?:cls-\d+|[a-z]+\d+)/g, (name) => {
    let renamed = names.get(name);
    if (renamed === undefined) {
      renamed = `${prefix}-${names.size}`;
      names.set(name, renamed);
    }
    return renamed;
  });
}

export function renderPng(svg: string, look: Look): Buffer {
  const image = new (resvg().Resvg)(svg, {
    fitTo: { mode: 'width', value: look.width },
    font: { loadSystemFonts: false, fontFiles: [fontPath()], defaultFontFamily: 'Inter', sansSerifFamily: 'Inter' },
  });
  return image.render().asPng();
}
