// Small transport helpers shared by the API client and the storage downloader.
import type { Readable } from 'node:stream';
import { GexwhError } from '../core/errors.js';
import type { AttemptOutcome } from './retry.js';

export interface Timeouts {
  /** TCP + TLS connect. */
  connectMs: number;
  /** Until the response headers have arrived. */
  headersMs: number;
  /** Longest pause between two body chunks. */
  bodyMs: number;
  /**
   * Slowest average rate accepted for a file body once bodyMs has passed: a server dribbling bytes
   * just often enough to dodge bodyMs (a slow loris) would otherwise hold a download for days.
   */
  minBytesPerSecond: number;
}

/**
 * The API bounds no latency: a manifest page or a history window is a server-side query that may take
 * a while on a busy or cold server, and a timed-out request is paid again when retried. Two minutes
 * before the headers still ends a dead connection well within a nightly run.
 */
export const DEFAULT_TIMEOUTS: Timeouts = { connectMs: 10_000, headersMs: 120_000, bodyMs: 60_000, minBytesPerSecond: 8 * 1024 };

/**
 * The largest JSON answer read (a history/levels window of 15m captures is a few MB). A larger one is
 * refused at this size: memory stays bounded whatever the server sends.
 */
export const DEFAULT_MAX_JSON_BYTES = 16 * 1024 * 1024;
/** A manifest page holds at most 400 rows of ~300 bytes: 2 MiB is ~15 times that. */
export const MAX_MANIFEST_JSON_BYTES = 2 * 1024 * 1024;

/** A body arriving slower than the minimum rate: a network failure (retried), not an answer. */
export class SlowBodyError extends Error {}

/** The slowest average rate a body may keep once `graceMs` has passed since its first byte was awaited. */
export interface MinimumPace {
  graceMs: number;
  minBytesPerSecond: number;
}

/**
 * Read a whole (small) body, refusing more than maxBytes so a runaway answer cannot exhaust memory,
 * and, with a pace, a body trickling slower than its minimum rate (a slow loris dodging bodyMs).
 */
export async function readCapped(body: Readable, maxBytes: number, tooLarge: () => Error, pace?: MinimumPace): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  const started = performance.now();
  for await (const chunk of body as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) {
      dropBody(body);
      throw tooLarge();
    }
    const slow = pace === undefined ? undefined : slowness(total, performance.now() - started, pace);
    if (slow !== undefined) {
      dropBody(body);
      throw new SlowBodyError(slow);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

/** Why `bytes` after `elapsedMs` is too slow, or undefined while the pace is kept (or in its grace). */
export function slowness(bytes: number, elapsedMs: number, pace: MinimumPace): string | undefined {
  if (elapsedMs <= pace.graceMs || (bytes * 1000) / elapsedMs >= pace.minBytesPerSecond) return undefined;
  const rate = Math.round((bytes * 1000) / elapsedMs);
  return `body too slow: ${rate} bytes/s after ${Math.round(elapsedMs / 1000)} s, below the ${pace.minBytesPerSecond} bytes/s minimum`;
}

/** Stop reading a body and close its connection, without an unhandled 'error' event. */
export function dropBody(body: Readable): void {
  body.on('error', () => {});
  body.destroy();
}

/** A body we do not need (a redirect's) is drained for reuse of the connection up to this much... */
export const MAX_DRAINED_BYTES = 8 * 1024;
/** ...and for this long; past either, the connection is dropped instead. */
export const MAX_DRAIN_MS = 2_000;

/**
 * Drain and drop a body we do not need, so the keep-alive connection can be reused; a body larger
 * or slower than a real redirect's is cut (the connection closed), so it costs neither memory nor time.
 */
export async function discard(body: Readable, limits = { maxBytes: MAX_DRAINED_BYTES, maxMs: MAX_DRAIN_MS }): Promise<void> {
  const timer = setTimeout(() => dropBody(body), limits.maxMs);
  let total = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      total += chunk.length;
      if (total > limits.maxBytes) {
        dropBody(body);
        return;
      }
    }
  } catch {
    // the connection is dropped anyway
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A thrown value during one attempt: our own errors and aborts are final; anything else (undici's
 * connect/headers/body timeouts, resets, refused connections, early close) is a network failure.
 */
export function outcomeOfThrown(error: unknown, signal: AbortSignal | undefined): AttemptOutcome | undefined {
  if (signal?.aborted) return undefined;
  if (error instanceof GexwhError) return undefined;
  return { kind: 'network' };
}

/** Failures before the request left this machine: retrying them can never be charged twice. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT']);

/**
 * Whether a failed exchange may have reached the server (a reset or closed socket, a timeout waiting
 * for the answer). Unknown failures count as reached: for a paid request that errs towards counting
 * a credit the server may not have charged, never towards paying twice unawares.
 */
export function mayHaveReachedServer(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && NOT_SENT_CODES.has(code)) return false;
  }
  return true;
}

/** Short description of a network failure, without headers, URLs or anything from the request. */
export function describeNetworkError(error: unknown): string {
  if (!(error instanceof Error)) return 'network error';
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? `${code}: ${error.message}` : error.message;
}

/** Replace every occurrence of the secret in server-sent strings (a hostile server could echo it). */
export function redactSecret<T>(value: T, secret: string): T {
  if (secret === '') return value;
  if (typeof value === 'string') return value.split(secret).join('[redacted]') as T;
  if (Array.isArray(value)) return (value as unknown[]).map((item) => redactSecret(item, secret)) as T;
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [redactSecret(k, secret), redactSecret(v, secret)])) as T;
  }
  return value;
}

export function firstHeader(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
