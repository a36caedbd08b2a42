// The synthetic market: ties the calendar, spot walk, books, snapshots and daily files together
// behind the MarketModel contract, with bounded caches (a capture is pure, so caching is safe).

import { buildExpirationBook, type ExpirationBook, type SessionFrame } from './book.js';
import * as calendar from './calendar.js';
import { aliasSymbols, selectSymbols, venuesOfHistoryExchange, type SymbolSpec } from './catalog.js';
import { EXPIRATION_GRACE_MS, listedExpirations } from './expirations.js';
import { writeByExpiryRows, writeTotalRows } from './file-rows.js';
import { CsvWriter, dailyFileOf, FILE_HEADERS, formatTimestamp, levelsCsvFields, rowPrefix, SCHEMA_VERSION } from './files.js';
import { relayout, resolveLayout, type CustomLayout } from './layouts.js';
import { LruCache } from './lru.js';
import { roundPrice } from './numbers.js';
import { zeroCrossings } from './profile.js';
import {
  captureProfiles,
  chainProfile,
  chainState,
  expirationLevels,
  termMetrics,
  totalLevels,
  totalStrikes,
  type CaptureProfiles,
  type ChainState,
} from './snapshot.js';
import { SpotModel } from './spot.js';
import { strikeRows, type StrikeColumns } from './strike-columns.js';
import type {
  Capture,
  DailyFile,
  ExpirationChain,
  ExpirationInfo,
  FileKind,
  LevelsFields,
  Market,
  MarketModel,
  MarketOptions,
  NetGexProfile,
  SymbolInfo,
} from './types.js';

const FILE_CACHE_BYTES = 256 * 1024 * 1024;
// Bounds chosen for memory: a realistic session (books of 12 expirations × 5 venues) is ~150 KB,
// a realistic capture ~200 KB, a levels object under 1 KB (31 days × 96 slots × a few venue sets).
const SESSION_CACHE_ENTRIES = 256;
const CAPTURE_CACHE_ENTRIES = 64;
const TOTAL_LEVELS_CACHE_ENTRIES = 50_000;
// Two crypto sessions of captures (~120 KB each with 12 x 120 chains): the three files of a day
// share their chains instead of computing them three times.
const SNAPSHOT_CACHE_ENTRIES = 192;

interface Session {
  frame: SessionFrame;
  books: Map<string, ExpirationBook>;
}

/** A capture's inputs before any levels are computed. */
interface Snapshot {
  spec: SymbolSpec;
  frame: SessionFrame;
  venues: readonly string[];
  timestampMs: number;
  spot: number;
  chains: ChainState[];
  /** TOTAL strikes, computed once when first asked for. */
  totalRows?: StrikeColumns;
  /** TOTAL's and each chain's profile, computed once when first asked for. */
  profiles?: CaptureProfiles;
}

class SyntheticMarket implements MarketModel {
  readonly symbols: readonly SymbolInfo[];
  private readonly specs: Map<string, SymbolSpec>;
  private readonly spot: SpotModel;
  private readonly sessions = new LruCache<string, Session>(SESSION_CACHE_ENTRIES);
  private readonly captures = new LruCache<string, Capture>(CAPTURE_CACHE_ENTRIES);
  private readonly totals = new LruCache<string, LevelsFields>(TOTAL_LEVELS_CACHE_ENTRIES);
  private readonly snapshots = new LruCache<string, Snapshot>(SNAPSHOT_CACHE_ENTRIES);
  private readonly files = new LruCache<string, DailyFile>(FILE_CACHE_BYTES, (v) => v.bytes.length);
  /** The files' layout when it is not the design's (then each file is the design CSV rewritten). */
  private readonly layout: CustomLayout | undefined;

  constructor(readonly options: MarketOptions) {
    if (!Number.isInteger(options.expirations) || options.expirations < 1) throw new RangeError('expirations must be a positive integer');
    if (!Number.isInteger(options.strikes) || options.strikes < 2) throw new RangeError('strikes must be an integer ≥ 2');
    calendar.utcMidnight(options.historyStart);
    const chosen = selectSymbols(options.symbols);
    const specs = [...chosen, ...aliasSymbols(options.aliases, chosen)];
    this.specs = new Map(specs.map((spec) => [spec.symbol, spec]));
    this.symbols = specs.map((spec) => ({
      symbol: spec.symbol,
      market: spec.market,
      venues: spec.venues,
      historyVenues: spec.historyVenues,
      ...servedHistoryOf(spec, options.historyVenues),
    }));
    this.spot = new SpotModel(options.seed);
    if (options.schemaVersion !== undefined && !(Number.isInteger(options.schemaVersion) && options.schemaVersion >= 1)) {
      throw new RangeError('schemaVersion must be a positive integer');
    }
    this.layout = resolveLayout(options.layout);
  }

  get schemaVersion(): number {
    return this.options.schemaVersion ?? SCHEMA_VERSION;
  }

  symbolInfo(symbol: string): SymbolInfo | undefined {
    return this.symbols.find((info) => info.symbol === symbol.toUpperCase());
  }

  sessionDateOf(market: Market, instant: Date): string {
    return calendar.sessionDateOf(market, instant);
  }

  sessionCaptures(market: Market, sessionDate: string): Date[] {
    return calendar.sessionCaptureTimes(market, sessionDate).map((ms) => new Date(ms));
  }

  latestCaptureAtOrBefore(market: Market, instant: Date): Date | null {
    const ms = calendar.latestCaptureAtOrBefore(market, instant.getTime(), this.options.historyStart);
    return ms === null ? null : new Date(ms);
  }

  isSessionComplete(market: Market, sessionDate: string, now: Date): boolean {
    return calendar.isSessionComplete(market, sessionDate, now.getTime());
  }

  expirationsAt(symbol: string, now: Date): ExpirationInfo[] {
    return listedExpirations(this.spec(symbol).market, now.getTime(), this.options.expirations, EXPIRATION_GRACE_MS);
  }

  capture(symbol: string, venues: readonly string[], timestampUtc: Date): Capture {
    const key = this.captureKey(symbol, venues, timestampUtc);
    return this.captures.getOrCreate(key, () => this.assembleCapture(this.snapshot(symbol, venues, timestampUtc)));
  }

  totalLevels(symbol: string, venues: readonly string[], timestampUtc: Date): LevelsFields {
    // Checked before building the snapshot: a cache hit costs no chain computation.
    const cached = this.totals.get(this.captureKey(symbol, venues, timestampUtc));
    if (cached !== undefined) return cached;
    const snap = this.snapshot(symbol, venues, timestampUtc);
    return this.totalLevelsOf(snap, this.totalRows(snap));
  }

  profile(symbol: string, venues: readonly string[], timestampUtc: Date, expiration = 'TOTAL'): NetGexProfile {
    const snap = this.snapshot(symbol, venues, timestampUtc);
    const chains = expiration === 'TOTAL' ? snap.chains : snap.chains.filter((chain) => chain.book.info.iso === expiration);
    if (chains.length === 0) throw new RangeError(`${expiration} is not listed at ${formatTimestamp(timestampUtc)}`);
    const profile = chainProfile(chains, snap.spot, snap.spec);
    return { ...profile, crossings: zeroCrossings(profile) };
  }

  dailyFile(exchange: string, symbol: string, sessionDate: string, kind: FileKind, revision: number): DailyFile {
    if (!Number.isInteger(revision) || revision < 0) throw new RangeError('revision must be a non-negative integer');
    const spec = this.spec(symbol);
    const venues = venuesOfHistoryExchange(spec, exchange);
    if (venues === undefined) throw new RangeError(`${exchange} has no history for ${spec.symbol}`);
    if (!(kind in FILE_HEADERS)) throw new RangeError(`unknown file kind ${kind}`);
    // The CSV text is not kept: a later revision (rare) builds it again, deterministically.
    return this.files.getOrCreate(`${exchange}|${spec.symbol}|${sessionDate}|${kind}|${revision}`, () => {
      const csv = this.buildCsv(exchange, spec, venues, sessionDate, kind);
      if (this.layout === undefined) return dailyFileOf(csv.view(), csv.rows, revision);
      return dailyFileOf(relayout(csv.view().toString('utf8'), kind, this.layout, this.schemaVersion), csv.rows, revision);
    });
  }

  // --- internals ---

  private spec(symbol: string): SymbolSpec {
    const spec = this.specs.get(symbol.toUpperCase());
    if (spec === undefined) throw new RangeError(`unknown symbol ${symbol}`);
    return spec;
  }

  /** The venues in the symbol's own order, deduplicated: one cache key per venue set. */
  private canonicalVenues(spec: SymbolSpec, venues: readonly string[]): readonly string[] {
    for (const venue of venues) {
      if (!spec.venues.includes(venue)) throw new RangeError(`${venue} does not list ${spec.symbol}`);
    }
    const wanted = spec.venues.filter((venue) => venues.includes(venue));
    if (wanted.length === 0) throw new RangeError('no venue given');
    return wanted;
  }

  private session(spec: SymbolSpec, sessionDate: string): Session {
    return this.sessions.getOrCreate(`${spec.symbol}|${sessionDate}`, () => {
      const startMs = calendar.sessionCaptureTimes(spec.market, sessionDate)[0];
      if (startMs === undefined) throw new RangeError(`${sessionDate} is not a ${spec.market} session`);
      const frame: SessionFrame = {
        spec,
        seed: this.options.seed,
        sessionDate,
        oiDate: calendar.previousSessionDate(spec.market, sessionDate),
        startMs,
        referenceSpot: this.spot.spotAt(spec, startMs),
        strikesPerChain: this.options.strikes,
      };
      return { frame, books: new Map() };
    });
  }

  private book(session: Session, info: ExpirationInfo): ExpirationBook {
    let book = session.books.get(info.iso);
    if (book === undefined) {
      book = buildExpirationBook(session.frame, info);
      session.books.set(info.iso, book);
    }
    return book;
  }

  private profiles(snap: Snapshot): CaptureProfiles {
    snap.profiles ??= captureProfiles(snap.chains, snap.spot, snap.spec);
    return snap.profiles;
  }

  /** The levels of the snapshot's chain number `index`. */
  private chainLevels(snap: Snapshot, index: number): LevelsFields {
    return expirationLevels(snap.chains[index] as ChainState, snap.venues, snap.spot, snap.spec, this.profiles(snap).byChain[index]);
  }

  private totalRows(snap: Snapshot): StrikeColumns {
    snap.totalRows ??= totalStrikes(snap.chains, snap.spec);
    return snap.totalRows;
  }

  private snapshot(symbol: string, venues: readonly string[], timestampUtc: Date): Snapshot {
    return this.snapshots.getOrCreate(this.captureKey(symbol, venues, timestampUtc), () => this.buildSnapshot(symbol, venues, timestampUtc));
  }

  private buildSnapshot(symbol: string, venues: readonly string[], timestampUtc: Date): Snapshot {
    const spec = this.spec(symbol);
    const timestampMs = timestampUtc.getTime();
    const sessionDate = calendar.sessionDateOf(spec.market, timestampMs);
    if (!calendar.sessionCaptureTimes(spec.market, sessionDate).includes(timestampMs)) {
      throw new RangeError(`${formatTimestamp(timestampMs)} is not a ${spec.market} capture slot`);
    }
    const canonical = this.canonicalVenues(spec, venues);
    const session = this.session(spec, sessionDate);
    const spot = roundPrice(this.spot.spotAt(spec, timestampMs));
    const chains = listedExpirations(spec.market, timestampMs, this.options.expirations, 0).map((info) =>
      chainState(spec, this.book(session, info), canonical, timestampMs, spot),
    );
    return { spec, frame: session.frame, venues: canonical, timestampMs, spot, chains };
  }

  /** One key per (symbol, venue set, slot); validates the symbol and venues. */
  private captureKey(symbol: string, venues: readonly string[], timestampUtc: Date): string {
    const spec = this.spec(symbol);
    return `${spec.symbol}|${this.canonicalVenues(spec, venues).join('+')}|${timestampUtc.getTime()}`;
  }

  private totalLevelsOf(snap: Snapshot, rows: StrikeColumns): LevelsFields {
    const key = `${snap.spec.symbol}|${snap.venues.join('+')}|${snap.timestampMs}`;
    return this.totals.getOrCreate(key, () => totalLevels(snap.chains, rows, snap.frame, snap.spot, this.profiles(snap).total));
  }

  private expirationChain(snap: Snapshot, chain: ChainState, index: number): ExpirationChain {
    const byVenue = Object.fromEntries(snap.venues.map((venue) => [venue, termMetrics(chain, venue, snap.spot, snap.spec)]));
    return {
      ...chain.book.info,
      dte: chain.dte,
      strikes: strikeRows(chain.columns),
      levels: this.chainLevels(snap, index),
      byVenue,
    };
  }

  private assembleCapture(snap: Snapshot): Capture {
    const rows = this.totalRows(snap);
    return {
      symbol: snap.spec.symbol,
      market: snap.spec.market,
      venues: snap.venues,
      timestampUtc: new Date(snap.timestampMs),
      sessionDate: snap.frame.sessionDate,
      oiDate: snap.frame.oiDate,
      spot: snap.spot,
      total: { levels: this.totalLevelsOf(snap, rows), strikes: strikeRows(rows) },
      expirations: snap.chains.map((chain, index) => this.expirationChain(snap, chain, index)),
    };
  }

  private buildCsv(exchange: string, spec: SymbolSpec, venues: readonly string[], sessionDate: string, kind: FileKind): CsvWriter {
    const times = calendar.sessionCaptureTimes(spec.market, sessionDate);
    if (times.length === 0) throw new RangeError(`${sessionDate} is not a ${spec.market} session`);
    const oiDate = calendar.previousSessionDate(spec.market, sessionDate);
    const writer = new CsvWriter(FILE_HEADERS[kind]);
    times.forEach((timestampMs, index) => {
      const type = index === times.length - 1 ? 'close' : 'intraday';
      const timestamp = formatTimestamp(timestampMs);
      const snap = this.snapshot(spec.symbol, venues, new Date(timestampMs));
      if (kind === 'strikes_by_expiry') {
        writeByExpiryRows(writer, [this.schemaVersion, timestamp, sessionDate, exchange, spec.symbol], snap.chains);
        return;
      }
      const rows = this.totalRows(snap);
      const total = this.totalLevelsOf(snap, rows);
      const common = [this.schemaVersion, timestamp, sessionDate, type, exchange, spec.symbol, oiDate] as const;
      if (kind === 'strikes_total') {
        writeTotalRows(writer, `${rowPrefix(common)},${levelsCsvFields(total)},`, rows);
        return;
      }
      const lines = [`${rowPrefix([...common, 'TOTAL', null])},${levelsCsvFields(total)}`];
      for (const [index, chain] of snap.chains.entries()) {
        const levels = this.chainLevels(snap, index);
        lines.push(`${rowPrefix([...common, chain.book.info.iso, chain.dte])},${levelsCsvFields(levels)}`);
      }
      writer.addLines(lines);
    });
    return writer;
  }
}

/** A symbol's narrowed history venues, checked against what it can serve (its single history venues, combined or tradfi). */
function servedHistoryOf(spec: SymbolSpec, narrowed: MarketOptions['historyVenues']): Pick<SymbolInfo, 'servedHistory'> {
  const venues = Object.entries(narrowed ?? {}).find(([symbol]) => symbol.toUpperCase() === spec.symbol)?.[1];
  if (venues === undefined) return {};
  const possible = spec.market === 'tradfi' ? ['tradfi'] : [...spec.historyVenues, 'combined'];
  const wrong = venues.filter((venue) => !possible.includes(venue));
  if (wrong.length > 0) throw new RangeError(`historyVenues ${spec.symbol}: ${wrong.join(', ')} not among ${possible.join(', ')}`);
  return { servedHistory: [...venues] };
}

// Markets built in this process, by their options. A market is pure, so emulators started with the
// same options (a test run's many benches, one emulator restarted) share one and the files it has
// built; a few, as each keeps caches of its own.
const MARKETS_KEPT = 4;
const markets = new LruCache<string, MarketModel>(MARKETS_KEPT);

export function createMarketModel(options: MarketOptions): MarketModel {
  return markets.getOrCreate(optionsKey(options), () => new SyntheticMarket(options));
}

/** The options as text, keys sorted at every depth: equal options give one key, whatever their order. */
function optionsKey(options: MarketOptions): string {
  const sorted = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(sorted);
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, inner]) => inner !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([key, inner]) => [key, sorted(inner)]),
    );
  };
  return JSON.stringify(sorted(options));
}
