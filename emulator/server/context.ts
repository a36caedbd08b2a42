// Shared state of one emulator instance and the shape of an API route.

import type { IncomingMessage } from 'node:http';
import type { FileKind, MarketModel } from '../market/types.js';
import type { Account, AuthBook } from './auth.js';
import type { EmulatorClock } from './clock.js';
import type { FaultAction, FaultBook } from './faults.js';
import type { FileStore } from './file-store.js';
import type { QuotaBook } from './quota.js';

export interface ServerState {
  model: MarketModel;
  /** The daily files: built once, their manifest facts indexed for good. */
  files: FileStore;
  clock: EmulatorClock;
  auth: AuthBook;
  quota: QuotaBook;
  faults: FaultBook;
  secret: Buffer;
  storageUrl: string;
  linkTtlSeconds: number;
  coverageCacheSeconds: number;
  historyPageRows: number;
  /** Rows of a manifest page: at most 400 by the spec, which never says a page holding fewer is the last. */
  manifestPageRows: number;
  /** 4xx answers of quota-counted endpoints are charged a request (off: only a 2xx costs). */
  chargeFailedRequests: boolean;
  /** Request-quota headers sent: all three, or only the two the spec names (no X-RateLimit-Remaining). */
  rateLimitHeaders: 'all' | 'named';
  /** Rebuild count per file (exchange/symbol/date/file); 0 when never rebuilt. */
  revisions: Map<string, number>;
  /** Cached /history/coverage answer and the clock instant it was computed at. */
  coverageCache?: { computedAt: number; rows: unknown[] };
}

export function revisionKey(exchange: string, symbol: string, date: string, file: FileKind): string {
  return `${exchange}/${symbol}/${date}/${file}`;
}

/** How a route is charged: free, one request (2xx only) or one file credit (the 302). */
export type Cost = 'free' | 'request' | 'credit';

export interface RouteContext {
  req: IncomingMessage;
  params: Record<string, string>;
  query: URLSearchParams;
  account: Account;
  now: Date;
  fault: FaultAction | undefined;
  state: ServerState;
}

export type RouteResult = { kind: 'json'; data: unknown; meta: Record<string, unknown> } | { kind: 'redirect'; location: string | null };

export interface Route {
  /** Path segments after /api/v1; `:name` captures one segment. */
  path: string[];
  cost: Cost;
  /** Whether answers carry meta.rate_limit and X-RateLimit-* headers. */
  rateLimit: boolean;
  /** Allowed query parameter names; anything else is invalid_param. */
  query: readonly string[];
  handle(ctx: RouteContext): RouteResult | Promise<RouteResult>;
}
