// The pure parts of a request and its answer: the base URL's rule, paths and query strings built so
// nothing a caller passes can change them, an answer's JSON and error body, Retry-After, and which
// daily bucket a 429 names.
import { ApiSchemaError, UsageError } from '../core/errors.js';
import { FILE_KINDS } from '../core/file-kinds.js';
import { firstHeader } from './http.js';
import { isLoopbackHost } from './location.js';
import type { QuotaBucketName } from './quota.js';
import { canonicalRawPath, type RawApiPath } from './raw-path.js';

export type Query = Record<string, string | undefined>;

/** An answer as read off the wire, before it is judged. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** How many attempts it took (an answer that stayed 5xx took every one the policy allows). */
  attempts?: number;
}

export function parseBaseUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError('the API base URL is not an absolute URL (expected e.g. https://api.example.com)');
  }
  if (url.username !== '' || url.password !== '') throw new UsageError('the API base URL must not contain user info');
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return url;
  throw new UsageError(`the API base URL must use https (plain http only to a loopback host, the key would travel in clear): ${url.protocol}//${url.host}`);
}

/** "/levels/deribit%2Bderive/BTC": each segment encoded, so nothing a caller passes can change the path. */
export function pathOf(...segments: string[]): string {
  return `/${segments.map((s) => encodeURIComponent(s)).join('/')}`;
}

export function queryString(query: Query): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.append(key, value);
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

export function parseJson(body: Buffer, endpoint: string): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw new ApiSchemaError(endpoint, 'the answer is not valid JSON');
  }
}

export function errorBodyOf(response: RawResponse): { slug: string; message: string; hints: Record<string, unknown> } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(response.body.toString('utf8'));
  } catch {
    parsed = undefined;
  }
  if (typeof parsed === 'object' && parsed !== null && typeof (parsed as { error?: unknown }).error === 'string') {
    const { error, message, ...hints } = parsed as Record<string, unknown>;
    return { slug: error as string, message: typeof message === 'string' ? message : `HTTP ${response.status}`, hints };
  }
  return { slug: `http_${response.status}`, message: `HTTP ${response.status} without an API error body`, hints: {} };
}

/**
 * Retry-After as whole seconds from now: delta-seconds or an HTTP date; undefined when absent,
 * unreadable, or not in the future.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  const seconds = /^\d+$/.test(text) ? Number(text) : Math.ceil((Date.parse(text) - nowMs) / 1000);
  return Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
}

export function bucketOf429(slug: string, headers: Record<string, string | string[] | undefined>): QuotaBucketName {
  if (slug === 'history_files_limit_exceeded') return 'files';
  if (slug === 'rate_limit_exceeded') return 'requests';
  return firstHeader(headers, 'x-history-files-limit') !== undefined ? 'files' : 'requests';
}

export function checkFileRef(date: string, file: string): void {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new UsageError(`file date must be YYYY-MM-DD, got "${date}"`);
  if (!(FILE_KINDS as readonly string[]).includes(file)) {
    throw new UsageError(`file must be one of ${FILE_KINDS.join(', ')}, got "${file}"`);
  }
}

export function normaliseRawPath(rawPath: string, query: Query): { path: RawApiPath; query: Query } {
  const path = canonicalRawPath(rawPath);
  const merged: Query = { ...path.query };
  for (const [key, value] of Object.entries(query)) if (value !== undefined) merged[key] = value;
  return { path, query: merged };
}
