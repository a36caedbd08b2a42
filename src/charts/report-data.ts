// What the report shows, read through the views: per pair the latest levels (levels_compare), the
// closes of the window (levels_close), and the profile at each of those closes (strikes_asof at the
// close's capture time); for the header the coverage last seen, the sessions listed but not loaded
// (gaps), and the last runs with their credits.
import type { DuckDBConnection } from '@duckdb/node-api';
import { UsageError } from '../core/errors.js';
import type { OnProgress } from '../core/progress.js';
import { pairsWithLevels } from '../warehouse/held-pairs.js';
import { num, readOne, readRow, readRows, text, maybeNum, maybeText } from '../warehouse/read-rows.js';
import { isIntraday } from './intraday.js';
import { readCloses, readProfile, readTerm } from './read.js';
import { readChanges, type PairChanges } from './report-changes.js';
import { strikesInRange } from './profile.js';
import type { CaptureLevels, Pair, ProfileData, SeriesData, TermData } from './types.js';

const ISO = `'%Y-%m-%dT%H:%M:%SZ'`;

export interface CoverageRow extends Pair {
  remoteFirst: string | null;
  remoteLast: string | null;
  remoteSessions: number | null;
  heldFirst: string | null;
  heldLast: string | null;
  heldSessions: number;
  /** Sessions the manifest lists with no loaded levels file, oldest first. */
  missing: string[];
}

export interface RunSummary {
  runId: number;
  command: string;
  startedAt: string;
  outcome: string | null;
  creditsSpent: number | null;
  filesLoaded: number | null;
}

/** The latest capture's levels, with spot's change over 1 and 7 days (levels_compare) and its nearest walls (nearest_walls). */
export interface LatestLevels extends CaptureLevels {
  spotDelta1d: number | null;
  spotDelta7d: number | null;
  nearestCallWall?: number | null;
  nearestPutWall?: number | null;
}

export interface PairReport extends Pair {
  latest: LatestLevels | null;
  /** The latest capture against the last close before it. */
  changes?: PairChanges | null;
  series: SeriesData;
  /** The profile at each close of the window, oldest first. */
  profiles: ProfileData[];
  /** The latest captured term structure of the pair, or of its symbol as the API resolved it (combined); null when none was captured. */
  term: TermData | null;
}

export interface ReportData {
  coverage: CoverageRow[];
  runs: RunSummary[];
  creditsSpent: number;
  /** What the archive holds on record that the warehouse's tables do not have yet (absent: nothing). */
  onRecord?: ArchiveRecord;
  pairs: PairReport[];
}

/**
 * Paid files waiting to load and credits spent by runs the warehouse has no finished record of (the
 * archive's journal, a stopped run's log): right after an abort or kill -9 they are only there.
 */
export interface ArchiveRecord {
  filesWaiting: number;
  creditsNotInRuns: number;
}

export interface ReportRequest {
  exchanges?: string[];
  symbols?: string[];
  sessions: number;
  rangePct: number;
  /** Leave out sessions whose last capture held is intraday. */
  closesOnly?: boolean;
  /** Read from the archive by the caller (none: nothing waits). */
  onRecord?: ArchiveRecord;
}

/** Pairs with levels held, filtered by the lists (names checked against the warehouse). */
export async function reportPairs(conn: DuckDBConnection, request: Pick<ReportRequest, 'exchanges' | 'symbols'>): Promise<Pair[]> {
  return pairsWithLevels(conn, 'levels_close', request, 'report');
}

export async function readReport(conn: DuckDBConnection, request: ReportRequest, onProgress?: OnProgress): Promise<ReportData> {
  const pairs = await reportPairs(conn, request);
  const allSeries = [];
  for (const pair of pairs)
    allSeries.push(await readCloses(conn, pair, { sessions: request.sessions, closesOnly: request.closesOnly === true }, request.rangePct));
  // One step per close's profile (the bulk of the work) and one per pair for its latest levels and term.
  const total = allSeries.reduce((n, series) => n + series.closes.length + 1, 0);
  let done = 0;
  const step = () => onProgress?.(++done, total);
  const reports: PairReport[] = [];
  for (const [index, pair] of pairs.entries()) {
    const series = allSeries[index]!;
    const profiles: ProfileData[] = [];
    for (const close of series.closes) {
      const profile = await readCloseProfile(conn, pair, close);
      const nearestWalls = { rangePct: request.rangePct, call: close.nearestCallWall, put: close.nearestPutWall };
      const moment = isIntraday(close) ? { intradayOf: close.sessionDate } : { closeOf: close.sessionDate };
      if (profile) profiles.push(strikesInRange({ ...profile, ...moment, nearestWalls }, request.rangePct));
      step();
    }
    const latest = await readLatest(conn, pair, request.rangePct);
    const changes = (await readChanges(conn, pair, request.rangePct)) ?? null;
    reports.push({ ...pair, latest, changes, series, profiles, term: await readPairTerm(conn, pair) });
    step();
  }
  const runs = await readRuns(conn);
  const { credits } = await readOne(conn, `SELECT coalesce(sum(credits_spent), 0)::BIGINT AS credits FROM sync.runs`, [], { credits: num });
  const onRecord = request.onRecord ?? { filesWaiting: 0, creditsNotInRuns: 0 };
  return { coverage: await readCoverage(conn, pairs), runs, creditsSpent: credits + onRecord.creditsNotInRuns, onRecord, pairs: reports };
}

/** Captures store the venue the API resolved: a crypto pair's term structure is under combined. */
/** The close's own capture: strikes_asof at that time, never a later one; undefined when its strikes file is not loaded. */
async function readCloseProfile(conn: DuckDBConnection, pair: Pair, close: { capturedAt: string }): Promise<Omit<ProfileData, 'askedAt'> | undefined> {
  // Staleness 0: without it, a close whose strikes are not held (today's --fill-levels capture) would get
  // an earlier session's strikes under its own name.
  const profile = await readProfile(conn, pair, 'TOTAL', { at: new Date(close.capturedAt), maxStalenessSeconds: 0 }).catch((error: unknown) => {
    if (error instanceof UsageError) return undefined;
    throw error;
  });
  if (profile === undefined) return undefined;
  const { askedAt: _asked, ...atClose } = profile;
  return atClose;
}

async function readPairTerm(conn: DuckDBConnection, pair: Pair): Promise<TermData | null> {
  for (const candidate of [pair, { exchange: 'combined', symbol: pair.symbol }]) {
    const held = await readRow(
      conn,
      `SELECT 1 AS held FROM term_structure WHERE exchange = $1 AND symbol = $2 AND venue = 'TOTAL' LIMIT 1`,
      [candidate.exchange, candidate.symbol],
      { held: num },
    );
    if (held) return readTerm(conn, candidate, {});
  }
  return null;
}

async function readLatest(conn: DuckDBConnection, pair: Pair, rangePct: number): Promise<LatestLevels | null> {
  const row = await readRow(
    conn,
    `SELECT strftime(c.timestamp_utc, ${ISO}) AS "capturedAt", c.type, c.spot, c.flip, c.regime, c.net_gex AS "netGex", c.p1_strike AS "callWall",
            c.n1_strike AS "putWall", c.spot_delta_1d AS "spotDelta1d", c.spot_delta_7d AS "spotDelta7d",
            w.nearest_call_wall AS "nearestCallWall", w.nearest_put_wall AS "nearestPutWall"
       FROM levels_compare c
       LEFT JOIN nearest_walls(range_pct := $3::DOUBLE) w
         ON w.exchange = c.exchange AND w.symbol = c.symbol AND w.timestamp_utc = c.timestamp_utc
      WHERE c.exchange = $1 AND c.symbol = $2`,
    [pair.exchange, pair.symbol, rangePct],
    {
      capturedAt: text,
      type: maybeText,
      spot: maybeNum,
      flip: maybeNum,
      regime: maybeText,
      netGex: maybeNum,
      callWall: maybeNum,
      putWall: maybeNum,
      spotDelta1d: maybeNum,
      spotDelta7d: maybeNum,
      nearestCallWall: maybeNum,
      nearestPutWall: maybeNum,
    },
  );
  return row ?? null;
}

async function readCoverage(conn: DuckDBConnection, pairs: Pair[]): Promise<CoverageRow[]> {
  const out: CoverageRow[] = [];
  for (const pair of pairs) {
    const params = [pair.exchange, pair.symbol];
    const remote = await readRow(
      conn,
      `SELECT strftime(first_ts, ${ISO}) AS first, strftime(last_ts, ${ISO}) AS last, sessions FROM sync.coverage WHERE exchange = $1 AND symbol = $2`,
      params,
      { first: maybeText, last: maybeText, sessions: maybeNum },
    );
    const held = await readOne(
      conn,
      `SELECT min(session_date)::VARCHAR AS first, max(session_date)::VARCHAR AS last, count(*)::BIGINT AS n FROM levels_close WHERE exchange = $1 AND symbol = $2`,
      params,
      { first: maybeText, last: maybeText, n: num },
    );
    const missing = await readRows(
      conn,
      `SELECT DISTINCT m.session_date::VARCHAR AS d FROM sync.manifest m
        WHERE m.exchange = $1 AND m.symbol = $2 AND m.file = 'levels'
          AND NOT EXISTS (SELECT 1 FROM sync.files f WHERE f.exchange = m.exchange AND f.symbol = m.symbol
                           AND f.session_date = m.session_date AND f.file = 'levels' AND f.status = 'loaded')
        ORDER BY d`,
      params,
      { d: text },
    );
    out.push({
      ...pair,
      remoteFirst: remote?.first ?? null,
      remoteLast: remote?.last ?? null,
      remoteSessions: remote?.sessions ?? null,
      heldFirst: held.first,
      heldLast: held.last,
      heldSessions: held.n,
      missing: missing.map((r) => r.d),
    });
  }
  return out;
}

async function readRuns(conn: DuckDBConnection): Promise<RunSummary[]> {
  return readRows(
    conn,
    `SELECT run_id AS "runId", command, strftime(started_at, ${ISO}) AS "startedAt", outcome, credits_spent AS "creditsSpent", files_loaded AS "filesLoaded"
       FROM sync.runs ORDER BY run_id DESC LIMIT 5`,
    [],
    { runId: num, command: text, startedAt: text, outcome: maybeText, creditsSpent: maybeNum, filesLoaded: maybeNum },
  );
}
