export { buildChart, encodeChart, type ChartRequest, type DrawnChart } from './draw.js';
export * from './request.js';
export { CHART_KINDS, THEMES, type ChartKind, type Theme, type Look } from './types.js';
export { buildReport } from './report.js';
