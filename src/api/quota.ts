// Quota state of the two daily buckets (requests and file credits), read from response headers or
// meta.rate_limit, plus what this client has spent. The spec allows the quota headers to be missing
// (quota service briefly down): then the state from that response is simply unknown.

import type { QuotaBucketName } from '../core/errors.js';

export type { QuotaBucketName };

export interface QuotaBucket {
  /** Daily limit; 0 means unlimited (see `unlimited`). */
  limit: number;
  /** Left until the reset; null when unknown or unlimited. */
  remaining: number | null;
  /** Next reset (midnight UTC); null when not given or unparseable. */
  reset: Date | null;
  unlimited: boolean;
}

/** What one response (or the client's latest knowledge) tells about each bucket; absent = unknown. */
export interface QuotaSnapshot {
  requests?: QuotaBucket;
  files?: QuotaBucket;
}

export interface QuotaSpent {
  /** Quota-counted requests answered, whatever the status, or the server's count when it is more. */
  requests: number;
  /** File links obtained (each 302 costs one credit). */
  credits: number;
}

/** Raised by a Downloader when a quota bucket is exhausted (429). */
export interface QuotaStop {
  bucket: QuotaBucketName;
  resetAt?: string;
}

export type HeaderBag = Record<string, string | string[] | undefined>;

const HEADER_PREFIX: Record<QuotaBucketName, string> = {
  requests: 'x-ratelimit',
  files: 'x-history-files',
};

/** Parse X-RateLimit-* or X-History-Files-* headers; undefined when the limit header is absent or bad. */
export function parseQuotaHeaders(headers: HeaderBag, bucket: QuotaBucketName): QuotaBucket | undefined {
  const prefix = HEADER_PREFIX[bucket];
  const limit = parseCount(headerValue(headers, `${prefix}-limit`));
  if (limit === undefined) return undefined;
  return makeBucket(limit, parseCount(headerValue(headers, `${prefix}-remaining`)), parseReset(headerValue(headers, `${prefix}-reset`)));
}

/** The meta.rate_limit / error hint block {limit, remaining, reset}; undefined when not usable. */
export function parseRateLimitBlock(block: unknown): QuotaBucket | undefined {
  if (typeof block !== 'object' || block === null) return undefined;
  const { limit, remaining, reset } = block as Record<string, unknown>;
  const parsedLimit = parseCount(limit);
  if (parsedLimit === undefined) return undefined;
  return makeBucket(parsedLimit, parseCount(remaining), parseReset(reset));
}

/** Quota of one response: headers first, meta.rate_limit as the fallback for the request bucket. */
export function quotaOfResponse(headers: HeaderBag, metaRateLimit?: unknown): QuotaSnapshot {
  const snapshot: QuotaSnapshot = {};
  const requests = withBlock(parseQuotaHeaders(headers, 'requests'), parseRateLimitBlock(metaRateLimit));
  const files = parseQuotaHeaders(headers, 'files');
  if (requests) snapshot.requests = requests;
  if (files) snapshot.files = files;
  return snapshot;
}

/**
 * The request bucket from the headers, completed by meta.rate_limit: the spec names only
 * X-RateLimit-Limit and X-RateLimit-Reset, so a server may send no X-RateLimit-Remaining while the
 * block carries it. The block fills a gap only when it describes the same bucket (the same limit).
 */
function withBlock(fromHeaders: QuotaBucket | undefined, fromBlock: QuotaBucket | undefined): QuotaBucket | undefined {
  if (fromHeaders === undefined || fromBlock === undefined) return fromHeaders ?? fromBlock;
  if (fromHeaders.limit !== fromBlock.limit) return fromHeaders;
  return { ...fromHeaders, remaining: fromHeaders.remaining ?? fromBlock.remaining, reset: fromHeaders.reset ?? fromBlock.reset };
}

/** Units left in a bucket: Infinity when unlimited, undefined when unknown. */
export function unitsLeft(bucket: QuotaBucket | undefined): number | undefined {
  if (bucket === undefined) return undefined;
  if (bucket.unlimited) return Number.POSITIVE_INFINITY;
  return bucket.remaining ?? undefined;
}

/** ISO 8601 (the spec) or, defensively, epoch seconds/milliseconds. */
export function parseReset(value: unknown): Date | null {
  if (typeof value === 'number') return epochToDate(value);
  if (typeof value !== 'string' || value.trim() === '') return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return epochToDate(Number(text));
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? null : new Date(ms);
}

/** Cost of one GET in each bucket, from the spec's cost table; `path` is relative to /api/v1. */
export function costOfPath(path: string): { requests: number; credits: number } {
  const segments = path
    .split('?')[0]!
    .split('/')
    .filter((s) => s !== '');
  const [first, second] = segments;
  if (first === 'history' && second === 'files') {
    if (segments.length === 6) return { requests: 0, credits: 1 };
    if (segments.length === 4) return { requests: 1, credits: 0 };
    return { requests: 0, credits: 0 };
  }
  if (first === 'levels' || first === 'gex') return { requests: 1, credits: 0 };
  if (first === 'history' && (second === 'timestamps' || second === 'levels' || second === 'snapshot')) {
    return { requests: 1, credits: 0 };
  }
  return { requests: 0, credits: 0 }; // exchanges, coins, expirations, me, history/coverage
}

/**
 * Latest known quota state and the totals this client has spent, for the run record. Requests are
 * counted as the server may count them: every answer of a quota-counted endpoint that may have been
 * charged (a 2xx, a 4xx but 429: the spec does not say failed ones are free), or the fall of the server's own `remaining` since this client first saw
 * it, when that is more.
 */
export class QuotaTracker {
  private latest: QuotaSnapshot = {};
  private answered = 0;
  private credits = 0;
  /** The server's remaining plus what this client had spent when it was seen: the day's start point. */
  private requestsBase: number | undefined;
  private baseReset: number | undefined;

  observe(snapshot: QuotaSnapshot): void {
    if (snapshot.requests) {
      this.latest.requests = snapshot.requests;
      this.rebase(snapshot.requests);
    }
    if (snapshot.files) this.latest.files = snapshot.files;
  }

  /** One answer of a path costing `requests` that the server may have charged. */
  countAnswered(requests: number): void {
    this.answered += requests;
  }

  countSpent(cost: Partial<QuotaSpent>): void {
    this.answered += cost.requests ?? 0;
    this.credits += cost.credits ?? 0;
  }

  state(): QuotaSnapshot {
    return { ...this.latest };
  }

  spent(): QuotaSpent {
    return { requests: this.requestsSpent(), credits: this.credits };
  }

  private requestsSpent(): number {
    const remaining = this.latest.requests?.remaining;
    if (this.requestsBase === undefined || remaining === null || remaining === undefined) return this.answered;
    return Math.max(this.answered, this.requestsBase - remaining);
  }

  private rebase(bucket: QuotaBucket): void {
    if (bucket.remaining === null) return;
    // A first sight, or a later reset time (the daily bucket was refilled): counted from here on.
    // Answers arriving out of order never move it: the fall is read from the first sight.
    const reset = bucket.reset?.getTime();
    if (this.requestsBase !== undefined && (reset === undefined || this.baseReset === undefined || reset <= this.baseReset)) return;
    this.requestsBase = bucket.remaining + this.answered;
    this.baseReset = reset;
  }
}

function makeBucket(limit: number, remaining: number | undefined, reset: Date | null): QuotaBucket {
  const unlimited = limit === 0;
  return { limit, remaining: unlimited ? null : (remaining ?? null), reset, unlimited };
}

function headerValue(headers: HeaderBag, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function parseCount(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 0 ? value : undefined;
  if (typeof value !== 'string' || !/^\s*\d+\s*$/.test(value)) return undefined;
  return Number(value.trim());
}

function epochToDate(value: number): Date | null {
  if (!Number.isFinite(value) || value < 0) return null;
  return new Date(value < 1e12 ? value * 1000 : value);
}
