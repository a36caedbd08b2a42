// `gexwh report`: reads the report's data and writes the one-file HTML page.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { DuckDBConnection } from '@duckdb/node-api';
import { readReport, type ReportRequest } from './report-data.js';
import { buildReportHtml } from './report-html.js';
import type { Look } from './types.js';
import type { OnProgress } from '../core/progress.js';

export function echartsBrowserScript(): string {
  // The "common" bundle (line, bar, scatter, markers, tooltip, legend, SVG renderer): 715 KB against 1.1 MB for the full one.
  const path = createRequire(import.meta.url).resolve('echarts/dist/echarts.common.min.js');
  return readFileSync(path, 'utf8');
}

export async function buildReport(
  conn: DuckDBConnection,
  request: ReportRequest,
  look: Look,
  onProgress?: OnProgress,
): Promise<{ html: string; pairs: number; charts: number }> {
  const data = await readReport(conn, request, onProgress);
  const html = await buildReportHtml(data, { look, echartsScript: echartsBrowserScript(), sessions: request.sessions, rangePct: request.rangePct });
  // levels, walls and net GEX always; the profile when strikes are held, the term structure when captured.
  const charts = data.pairs.reduce((n, p) => n + 3 + (p.profiles.length > 0 ? 1 : 0) + (p.term === null ? 0 : 1), 0);
  return { html, pairs: data.pairs.length, charts };
}
