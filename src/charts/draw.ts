// One chart from the warehouse: read through the views, build the ECharts option, render to SVG or PNG.
import type { DuckDBConnection } from '@duckdb/node-api';
import type { EChartsOption } from 'echarts';
import { embedFont } from './font.js';
import { levelsOption } from './levels.js';
import { netGexOption } from './netgex.js';
import { oiOption } from './oi.js';
import { profileOption, strikesInRange } from './profile.js';
import { readCloses, readProfile, readTerm, resolvePair, type Moment, type SessionRange } from './read.js';
import { readSession } from './read-session.js';
import { sessionOption } from './session.js';
import { renderPng, renderSvg } from './render.js';
import type { OutputFormat } from './request.js';
import { termOption } from './term.js';
import type { ChartKind, Look, Pair } from './types.js';
import { wallsOption } from './walls.js';

export interface ChartRequest {
  kind: ChartKind;
  pair: Pair;
  moment: Moment;
  expiration: string;
  rangePct: number;
  net: boolean;
  sessions: SessionRange;
  /** intraday: the session drawn, YYYY-MM-DD; undefined: the latest held. */
  date?: string;
  look: Look;
}

export interface DrawnChart {
  pair: Pair;
  /** What the chart shows, for the command's result line. */
  caption: string;
  option: EChartsOption;
}

export async function buildChart(conn: DuckDBConnection, request: ChartRequest): Promise<DrawnChart> {
  const pair = await resolvePair(conn, request.pair);
  switch (request.kind) {
    case 'profile': {
      const data = strikesInRange(await readProfile(conn, pair, request.expiration, request.moment, request.rangePct), request.rangePct);
      return { pair, caption: `capture ${data.capturedAt}, ${data.strikes.length} strikes`, option: profileOption(data, { net: request.net }, request.look) };
    }
    case 'levels': {
      const data = await readCloses(conn, pair, request.sessions, request.rangePct);
      return { pair, caption: `${data.closes.length} sessions`, option: levelsOption(data, request.look) };
    }
    case 'walls': {
      const data = await readCloses(conn, pair, request.sessions, request.rangePct);
      return { pair, caption: `${data.closes.length} sessions`, option: wallsOption(data, request.look) };
    }
    case 'term': {
      const data = await readTerm(conn, pair, request.moment);
      return { pair, caption: `capture ${data.capturedAt}, ${data.rows.length} expirations`, option: termOption(data, request.look) };
    }
    case 'netgex': {
      const data = await readCloses(conn, pair, request.sessions, request.rangePct);
      return { pair, caption: `${data.closes.length} sessions`, option: netGexOption(data, request.look) };
    }
    case 'intraday': {
      const data = await readSession(conn, pair, request.date, request.rangePct);
      return { pair, caption: `session ${data.sessionDate}, ${data.captures.length} captures`, option: sessionOption(data, request.look) };
    }
    case 'oi': {
      const data = strikesInRange(await readProfile(conn, pair, request.expiration, request.moment), request.rangePct);
      return { pair, caption: `capture ${data.capturedAt}, ${data.strikes.length} strikes`, option: oiOption(data, request.look) };
    }
  }
}

export async function encodeChart(option: EChartsOption, look: Look, format: OutputFormat): Promise<Buffer> {
  const svg = renderSvg(option, look);
  // The PNG is drawn from the SVG before the font is embedded: resvg reads the font file itself.
  return format === 'svg' ? Buffer.from(await embedFont(svg), 'utf8') : renderPng(svg, look);
}
