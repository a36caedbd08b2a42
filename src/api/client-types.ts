// The client's public shapes: its options, the typed answers and a paid file link, and the one rule
// of what key it sends.
import { AuthError } from '../core/errors.js';
import type { CoverageRow } from '../core/rows.js';
import { DEFAULT_CALL_BUDGET_MS } from './call-budget.js';
import type { Timeouts } from './http.js';
import type { QuotaSnapshot } from './quota.js';
import type { RetryPolicy, Sleep } from './retry.js';
import type { EndpointData, EndpointMeta, EndpointName, RejectedCoverageRow } from './schemas.js';

/**
 * The spec says a key is the service's prefix and 32 URL-safe characters, and never names the
 * prefix: the server decides. Sent is any key an HTTP header can carry as it is: printable ASCII,
 * no whitespace, no control character.
 */
export const API_KEY_PATTERN = /^[\x21-\x7e]+$/;

export interface ApiClientOptions {
  /** The root that holds /api/v1, e.g. https://api.example.com or http://127.0.0.1:1234. */
  baseUrl: string;
  apiKey: string;
  userAgent?: string;
  timeouts?: Partial<Timeouts>;
  retry?: Partial<RetryPolicy> & { sleep?: Sleep };
  /** Cap of a JSON answer (default 16 MiB; a manifest page 2 MiB). */
  maxJsonBytes?: number;
  /** How long a presigned link is trusted (default 15 min). */
  linkLifetimeMs?: number;
  /** Clock in ms, for link ages (tests inject one). */
  now?: () => number;
  /**
   * Stops this client (SIGINT/SIGTERM): free calls are aborted at once; a file-link request already
   * sent and the download of a link already paid are let finish their attempt (see send()).
   */
  signal?: AbortSignal;
  /** Max sockets to the API origin (default 8). */
  connections?: number;
  /**
   * The longest one call waits in all, its retries and pauses included (default 60 s): each retry
   * waits for its answer less than the one before.
   */
  callBudgetMs?: number;
  /** Where the key came from, named when the API refuses it (default: GEX_API_KEY or the key file). */
  keySource?: string;
}

export interface ApiResponse<E extends EndpointName> {
  data: EndpointData<E>;
  meta: EndpointMeta<E>;
  /** What this response said about the quota buckets (a bucket is absent when it said nothing). */
  quota: QuotaSnapshot;
}

export type CoverageResponse = Omit<ApiResponse<'coverage'>, 'data'> & { data: CoverageRow[]; rejected: RejectedCoverageRow[] };

export interface RawApiResponse {
  status: number;
  body: unknown;
  quota: QuotaSnapshot;
}

export interface FileLink {
  location: URL;
  issuedAt: Date;
  quota: QuotaSnapshot;
}

/** A key an HTTP header carries as it is; anything else is refused before a request, never echoed. */
export function checkKey(apiKey: unknown): void {
  if (typeof apiKey === 'string' && API_KEY_PATTERN.test(apiKey)) return;
  // Never echo the value: a mistyped key is still (mostly) a secret.
  throw new AuthError(
    'the API key cannot be sent: it is empty or holds whitespace, a control character or a non-ASCII character; check GEX_API_KEY or the file of --api-key-file',
  );
}

export function callBudgetOf(options: ApiClientOptions): number {
  const budget = options.callBudgetMs ?? DEFAULT_CALL_BUDGET_MS;
  if (!(budget > 0)) throw new RangeError(`callBudgetMs must be > 0, got ${budget}`);
  return budget;
}
