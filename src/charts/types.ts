// The shapes charts are built from: rows as the warehouse's views answer them, with times as ISO text
// (UTC) and GEX in USD per 1% move, as stored.

export const CHART_KINDS = ['profile', 'oi', 'levels', 'walls', 'netgex', 'term', 'intraday'] as const;
export type ChartKind = (typeof CHART_KINDS)[number];

export const THEMES = ['light', 'dark'] as const;
export type Theme = (typeof THEMES)[number];

export interface Pair {
  exchange: string;
  symbol: string;
}

export interface StrikeRow {
  strike: number;
  callGex: number | null;
  putGex: number | null;
  netGex: number | null;
  /** Open interest in contracts. */
  callOi: number | null;
  putOi: number | null;
  /** Net GEX of this strike and every lower strike of the capture (all of them, not only those in range). */
  cumulativeNetGex: number | null;
}

/** A capture's totals from its levels row: every strike of the chain, not only those drawn. */
export interface CaptureTotals {
  netGex: number | null;
  callGex: number | null;
  putGex: number | null;
  /** Open interest in contracts. */
  callOi: number | null;
  putOi: number | null;
}

/** One capture's profile: strikes_asof (TOTAL) or the same rule on strikes_expiry (one expiration). */
export interface ProfileData extends Pair {
  /** 'TOTAL' or an expiration date YYYY-MM-DD. */
  expiration: string;
  /** The capture drawn: the last at or before the asked time. */
  capturedAt: string;
  sessionDate: string;
  /** The time asked for with --at; absent when the latest capture was asked for. */
  askedAt?: string;
  /** Drawn as the close of this session (the report's slider), rather than for a time asked. */
  closeOf?: string;
  /** Drawn as the last capture held of this session, an intraday one (the report's slider): not a close. */
  intradayOf?: string;
  spot: number | null;
  flip: number | null;
  regime: string | null;
  /** The API's walls: p1_strike and n1_strike, the largest positive and negative net-GEX strikes. */
  callWall: number | null;
  putWall: number | null;
  /** nearest_walls of this capture (TOTAL only): within rangePct of spot; absent when not read. */
  nearestWalls?: NearestWalls;
  totals: CaptureTotals;
  /** Strikes within the range, ascending. */
  strikes: StrikeRow[];
}

/** nearest_walls(range_pct) of one capture: the largest +net-GEX strike above spot and the most negative below, within rangePct. */
export interface NearestWalls {
  rangePct: number;
  call: number | null;
  put: number | null;
}

/** The levels of one capture, as the levels views name them. */
export interface CaptureLevels {
  capturedAt: string;
  type: string | null;
  spot: number | null;
  flip: number | null;
  regime: string | null;
  netGex: number | null;
  callWall: number | null;
  putWall: number | null;
}

/** One session's close from levels_close. */
export interface CloseRow extends CaptureLevels {
  sessionDate: string;
  p1Strike: number | null;
  p1Gex: number | null;
  p2Strike: number | null;
  p2Gex: number | null;
  n1Strike: number | null;
  n1Gex: number | null;
  n2Strike: number | null;
  n2Gex: number | null;
  /** nearest_walls of the close's capture, within the chart's range; null when its strikes are not held. */
  nearestCallWall: number | null;
  nearestPutWall: number | null;
}

export interface SeriesData extends Pair {
  /** The range of the closes' nearest walls, percent of spot. */
  rangePct: number;
  closes: CloseRow[];
}

/** One expiration of a captured term structure (venue TOTAL). */
export interface TermRow {
  expiration: string;
  expirationDate: string | null;
  daysToExpiry: number | null;
  totalGex: number | null;
  oiUsd: number | null;
  callOiUsd: number | null;
  putOiUsd: number | null;
}

export interface TermData extends Pair {
  capturedAt: string;
  askedAt?: string;
  spot: number | null;
  rows: TermRow[];
}

export interface Look {
  width: number;
  height: number;
  theme: Theme;
  /** The zone times are written in (--tz): UTC or an IANA name; undefined is UTC. Storage stays UTC. */
  timeZone?: string;
}

/** Every capture of one session (levels_total), oldest first, each with its nearest walls. */
export interface SessionCaptures extends Pair {
  sessionDate: string;
  /** The range of the nearest walls, percent of spot. */
  rangePct: number;
  captures: CaptureRow[];
}

/** One capture of a session: its levels and, when its strikes are held, its nearest walls. */
export interface CaptureRow extends CaptureLevels {
  source: string | null;
  nearestCallWall: number | null;
  nearestPutWall: number | null;
}
