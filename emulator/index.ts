// The GEX Data API emulator: an API listener and a storage listener (another port, so another
// origin) over the synthetic market, with a controllable clock, quotas, keys and fault injection.
// startEmulator() is what the CLI (`gexwh emulate`, `gexwh demo`) and the tests call.

import { createHash } from 'node:crypto';
import type { Server } from 'node:http';
import { createMarketModel } from './market/index.js';
import { FILE_KINDS, type FileKind, type MarketModel } from './market/types.js';
import type { FileLayoutOption } from './market/layouts.js';
import { createApiServer } from './server/api.js';
import { ACCOUNT_NAMES, createAuthBook, type AccountName } from './server/auth.js';
import { createClock, type EmulatorClock } from './server/clock.js';
import { revisionKey, type ServerState } from './server/context.js';
import { createFaultBook, type FaultRule } from './server/faults.js';
import { closeServer, listen } from './server/http.js';
import { createQuotaBook } from './server/quota.js';
import { defaultFactsCacheDir, openFactsCache } from './server/facts-cache.js';
import { createFileStore, type FileStore } from './server/file-store.js';
import { currentFileBytes, fileExists } from './server/routes/files.js';
import { completedSessions } from './server/timeline.js';
import { historyVenuesOf } from './server/venues.js';
import type { FileRef } from './server/storage.js';
import { ALL_ROUTES } from './server/routes/index.js';
import { createStorageServer } from './server/storage.js';
import { addDays } from './server/params.js';

export type { FaultAction, FaultRule } from './server/faults.js';
export type { EmulatorClock } from './server/clock.js';
export { LAYOUT_NAMES, type CustomLayout, type FileLayoutOption, type LayoutName } from './market/layouts.js';
export { defaultBuildWorkers } from './server/file-store.js';
export { defaultFactsCacheDir } from './server/facts-cache.js';
export { describeAccount } from './server/auth.js';

export interface EmulatorOptions {
  host?: string; // default 127.0.0.1
  port?: number; // default 0 (any free port)
  storagePort?: number; // default 0
  seed?: number; // default 42
  /** History length in days before now (default 30). */
  days?: number;
  /** Frozen clock at this instant (moved only by clock.set/advance), unless realtimeClock. */
  now?: Date | string;
  symbols?: string[];
  /** More symbols served like a catalog one under another name (new name → catalog name), e.g. a long symbol for tests. */
  symbolAliases?: Record<string, string>;
  /** History venues served per symbol (coverage, manifests, files), e.g. `{ BTC: ['bybit'] }`: no `combined` unless named. */
  historyVenues?: Record<string, string[]>;
  expirations?: number; // default 6
  strikes?: number; // default 40
  linkTtlSeconds?: number; // default 900
  coverageCacheSeconds?: number; // default 3600
  /** With `now`: start there and tick with the wall clock (for the CLI). */
  realtimeClock?: boolean;
  /** Rows per /history/levels page (default 5,000 as in the spec; tests lower it to exercise paging). */
  historyPageRows?: number;
  /**
   * Rows per manifest page (default 400). The spec says "at most 400", so a smaller page may still
   * have older sessions after it: a client must not take a short page for the last.
   */
  manifestPageRows?: number;
  /**
   * Worker threads building daily files (default 0: built in the server's thread, fine for small
   * chains). With workers, every completed file is also built in the background at start, newest
   * first, so manifest pages find their rows indexed.
   */
  buildWorkers?: number;
  /**
   * With workers, build every completed file in the background at start (default true, as the CLI
   * does); false builds only what requests ask for (a test that syncs a few pairs of a long history).
   */
  warmFiles?: boolean;
  /**
   * Folder of the manifest facts cache kept between runs (see facts-cache.ts), or false for none.
   * Default: with workers (the CLI) `defaultFactsCacheDir()` (GEXWH_EMULATOR_CACHE, else
   * ~/.cache/gexwh/emulator); without, none.
   */
  factsCache?: string | false;
  /**
   * The daily files' layout (default `design`): `lean`, `shuffled`, `wide`, or a layout spelled out
   * (columns per kind, CRLF, BOM, quoted or exponent numbers, empty columns): emulator/market/layouts.ts.
   */
  layout?: FileLayoutOption;
  /** The schema_version manifests, files and /history/levels say (default 1). */
  schemaVersion?: number;
  /** Prefix of the demo keys (default `gex_`; the spec never names the service's prefix). */
  keyPrefix?: string;
  /** 4xx answers of quota-counted endpoints cost a request too (the spec does not say they are free). */
  chargeFailedRequests?: boolean;
  /**
   * 'named': answers carry only X-RateLimit-Limit and X-RateLimit-Reset, the two headers the spec
   * names, and no X-RateLimit-Remaining (meta.rate_limit still has it). Default 'all'.
   */
  rateLimitHeaders?: 'all' | 'named';
}

export type EmulatorKeys = Record<AccountName, string>;

export interface EmulatorCounters {
  /** Requests charged to the key's account since start (never reset; bearer calls count for pro). */
  requests(key: string): number;
  /** File credits charged to the key's account since start (never reset). */
  credits(key: string): number;
  readonly storageHits: number;
  readonly storageTripwire: number;
  readonly apiHits: number;
  /** API and storage requests whose pathname+search matches. */
  hits(pathPattern: RegExp): number;
}

export interface Emulator {
  baseUrl: string; // the root that holds /api/v1
  storageUrl: string;
  keys: EmulatorKeys;
  bearerToken: string;
  clock: EmulatorClock;
  faults: { add(rule: FaultRule): void; clear(): void };
  rebuildFile(exchange: string, symbol: string, date: string, file: FileKind): void;
  setQuota(key: string, q: { requestsUsed?: number; creditsUsed?: number }): void;
  counters: EmulatorCounters;
  market: MarketModel;
  /** Files whose manifest facts (rows, bytes, sha256) are indexed so far. */
  readonly filesIndexed: number;
  /** Daily files built since start (a listing answered from the index builds none). */
  readonly filesBuilt: number;
  close(): Promise<void>;
}

const DEFAULTS = { host: '127.0.0.1', seed: 42, days: 30, expirations: 6, strikes: 40, linkTtlSeconds: 900, coverageCacheSeconds: 3600 };

function marketModelOf(options: EmulatorOptions, seed: number, now: Date) {
  const days = options.days ?? DEFAULTS.days;
  return createMarketModel({
    seed,
    expirations: options.expirations ?? DEFAULTS.expirations,
    strikes: options.strikes ?? DEFAULTS.strikes,
    historyStart: addDays(now.toISOString().slice(0, 10), -days),
    ...(options.symbols ? { symbols: options.symbols } : {}),
    ...(options.symbolAliases ? { aliases: options.symbolAliases } : {}),
    ...(options.layout ? { layout: options.layout } : {}),
    ...(options.schemaVersion !== undefined ? { schemaVersion: options.schemaVersion } : {}),
    ...(options.historyVenues ? { historyVenues: options.historyVenues } : {}),
  });
}

/** The file store; the CLI's (with build workers) keeps manifest facts on disk between runs unless told not to. */
function fileStoreOf(options: EmulatorOptions, model: MarketModel): FileStore {
  const workers = options.buildWorkers ?? 0;
  const cacheDir = options.factsCache ?? (workers > 0 ? defaultFactsCacheDir() : undefined);
  return createFileStore(model, workers, cacheDir ? openFactsCache(cacheDir, model) : undefined);
}

function serverStateOf(options: EmulatorOptions, parts: Pick<ServerState, 'model' | 'files' | 'clock' | 'auth' | 'secret'>): ServerState {
  return {
    ...parts,
    quota: createQuotaBook(),
    faults: createFaultBook(),
    storageUrl: '',
    linkTtlSeconds: options.linkTtlSeconds ?? DEFAULTS.linkTtlSeconds,
    coverageCacheSeconds: options.coverageCacheSeconds ?? DEFAULTS.coverageCacheSeconds,
    historyPageRows: options.historyPageRows ?? 5000,
    manifestPageRows: options.manifestPageRows ?? 400,
    chargeFailedRequests: options.chargeFailedRequests === true,
    rateLimitHeaders: options.rateLimitHeaders ?? 'all',
    revisions: new Map(),
  };
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const clockOptions = options.now === undefined ? {} : { now: options.now, realtime: options.realtimeClock === true };
  const clock = createClock(clockOptions);
  const seed = options.seed ?? DEFAULTS.seed;
  const secret = createHash('sha256').update(`gexwh-emulator:${seed}`).digest();
  const model = marketModelOf(options, seed, clock.now());
  const auth = createAuthBook(secret, clock.now(), keyPrefixOf(options));
  const hitLog: string[] = [];
  const apiCounters = { hits: 0 };
  const storageCounters = { hits: 0, tripwire: 0 };
  const files = fileStoreOf(options, model);
  const state = serverStateOf(options, { model, files, clock, auth, secret });
  const host = options.host ?? DEFAULTS.host;
  const storage = createStorageServer({
    secret,
    now: () => clock.now(),
    faults: state.faults,
    fileBytes: (ref) => currentFileBytes(state, ref, clock.now()),
    counters: storageCounters,
    recordHit: (path) => hitLog.push(path),
  });
  const api = createApiServer({ state, routes: ALL_ROUTES, counters: apiCounters, recordHit: (path) => hitLog.push(path) });
  const servers: Server[] = [];
  try {
    state.storageUrl = await listen(storage, host, options.storagePort ?? 0);
    servers.push(storage);
    const baseUrl = await listen(api, host, options.port ?? 0);
    servers.push(api);
    if (options.warmFiles !== false) files.warm(completedFilesNewestFirst(model, clock.now()));
    return {
      baseUrl,
      storageUrl: state.storageUrl,
      keys: { ...auth.keys },
      bearerToken: auth.bearerToken,
      clock,
      faults: { add: (rule) => state.faults.add(rule), clear: () => state.faults.clear() },
      rebuildFile(exchange, symbol, date, file) {
        if (!FILE_KINDS.includes(file)) throw new RangeError(`unknown file kind ${file}`);
        const key = revisionKey(exchange, symbol.toUpperCase(), date, file);
        state.revisions.set(key, (state.revisions.get(key) ?? 0) + 1);
      },
      setQuota(key, used) {
        state.quota.setUsed(accountIdOf(key), used, clock.now());
      },
      counters: {
        requests: (key) => state.quota.chargedEver(accountIdOf(key), 'requests'),
        credits: (key) => state.quota.chargedEver(accountIdOf(key), 'credits'),
        get storageHits() {
          return storageCounters.hits;
        },
        get storageTripwire() {
          return storageCounters.tripwire;
        },
        get apiHits() {
          return apiCounters.hits;
        },
        hits: (pattern) => hitLog.filter((path) => matches(pattern, path)).length,
      },
      market: model,
      get filesIndexed() {
        return files.indexed;
      },
      get filesBuilt() {
        return files.built;
      },
      close: () => closeAll(servers, files),
    };
  } catch (error) {
    await closeAll(servers, files);
    throw error;
  }

  function accountIdOf(key: string): AccountName {
    if (key === auth.bearerToken) return 'pro';
    const account = auth.accountOfKey(key);
    if (!account) throw new RangeError('not a key of this emulator');
    return account.id;
  }
}

/** A key prefix of URL-safe characters, so every key stays what an HTTP header carries as it is. */
function keyPrefixOf(options: EmulatorOptions): string | undefined {
  const prefix = options.keyPrefix;
  if (prefix !== undefined && !/^[A-Za-z0-9_-]{1,32}$/.test(prefix)) {
    throw new RangeError(`keyPrefix must be 1 to 32 URL-safe characters (A-Z a-z 0-9 _ -), got ${JSON.stringify(prefix)}`);
  }
  return prefix;
}

async function closeAll(servers: Server[], files: FileStore): Promise<void> {
  await Promise.all(servers.map(closeServer));
  await files.close();
}

/** Every file of a completed session at `now`, newest session first across all pairs (a sync's order). */
function completedFilesNewestFirst(model: MarketModel, now: Date): FileRef[] {
  const refs: FileRef[] = [];
  for (const info of model.symbols) {
    const dates = completedSessions(model, info.market, now);
    for (const exchange of historyVenuesOf(info)) {
      for (const date of dates) {
        for (const file of FILE_KINDS) {
          const ref = { exchange, symbol: info.symbol, date, file };
          if (fileExists(model, ref, now)) refs.push(ref);
        }
      }
    }
  }
  // Stable: within a date, pairs keep the catalog's order.
  return refs.sort((a, b) => (a.date === b.date ? 0 : a.date < b.date ? 1 : -1));
}

function matches(pattern: RegExp, text: string): boolean {
  pattern.lastIndex = 0;
  return pattern.test(text);
}

export { ACCOUNT_NAMES };
