// Small transport helpers shared by the API client and the storage downloader.
import type { Readable } from 'node:stream';
import { GexwhError } from '../errors.js';
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

export const DEFAULT_MAX_JSON_BYTES = 64 * 1024 * 1024;

/** Read a whole (small) body, refusing more than maxBytes so a runaway answer cannot exhaust memory. */
export async function readCapped(body: Readable, maxBytes: number, tooLarge: () => Error): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) {
      dropBody(body);
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

/** Stop reading a body and close its connection, without an unhandled 'error' event. */
export function dropBody(body: Readable): void {
  body.on('error', () => {});
  body.destroy();
}

/** Drain and drop a body we do not need, so the keep-alive connection can be reused. */
export async function discard(body: Readable): Promise<void> {
  try {
    for await (const _ of body as AsyncIterable<Buffer>) void _;
  } catch {
    // the connection is dropped anyway
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
  if (Array.isArray(value)) return value.map((item) => redactSecret(item, secret)) as T;
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [redactSecret(k, secret), redactSecret(v, secret)])) as T;
  }
  return value;
}

export function firstHeader(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
