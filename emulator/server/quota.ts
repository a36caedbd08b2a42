// Quota rules of the emulator (the README copies this block).
//
// - Two daily buckets per account: requests and history file credits. Limits come from the plan
//   (trial 50/20, pro 500/200, admin 0 = unlimited). Both reset at midnight UTC of the emulator
//   clock; `reset` is always the next midnight UTC.
// - Cost table of the spec: /exchanges, /coins, /expirations, /me and /history/coverage are free;
//   /levels, /gex/*, /history/levels, /history/snapshot, /history/timestamps and the /history/files
//   listing cost one request; a download costs one file credit and no request.
// - Only a successful answer costs: a 2xx of a request endpoint costs one request, the 302 of a
//   download costs one credit (charged when the 302 is issued, before the link is used). Every 4xx
//   and 5xx (400, 401, 403, 404, 405, 429, 503, ...) costs nothing, on every endpoint. With
//   `chargeFailedRequests` (the spec leaves it open) a 4xx of a request endpoint other than 429
//   costs its request too, while any is left.
// - The quota is checked after the request has been validated: a bad parameter gets its 400 even
//   when the bucket is empty; a valid request on an empty bucket gets 429 rate_limit_exceeded (or
//   history_files_limit_exceeded) with the `rate_limit` hint and headers, never Retry-After.
// - Headers: X-RateLimit-Limit/Remaining/Reset (rateLimitHeaders 'named': no -Remaining, the spec
//   names only the other two) on every answer of a request endpoint and of
//   /expirations and /me (not on /exchanges, /coins, /history/coverage); the body's
//   meta.rate_limit mirrors them. X-History-Files-Limit/Remaining/Reset on the download's 302 and on
//   its 429. Unlimited: limit 0 and remaining 0 in headers and meta; /me shows remaining null.
// - The `missing_quota_headers` fault imitates a quota service outage: no quota headers, nothing
//   charged, the request proceeds.
// - Test counters (`counters.requests/credits`) count what was charged since the emulator started,
//   per account; they never reset (setQuota and midnight only touch the buckets).

import type { Account, AccountName } from './auth.js';

export type BucketName = 'requests' | 'credits';

export interface QuotaStatus {
  limit: number; // 0 = unlimited
  used: number;
  remaining: number | null; // null = unlimited
  reset: Date;
}

export interface QuotaBook {
  status(account: Account, bucket: BucketName, now: Date): QuotaStatus;
  /** True when one more unit may be spent. */
  canSpend(account: Account, bucket: BucketName, now: Date): boolean;
  charge(account: Account, bucket: BucketName, now: Date): void;
  setUsed(account: AccountName, used: { requestsUsed?: number; creditsUsed?: number }, now: Date): void;
  chargedEver(account: AccountName, bucket: BucketName): number;
}

interface Buckets {
  day: string; // UTC date the counts belong to
  requests: number;
  credits: number;
}

export function utcDay(instant: Date): string {
  return instant.toISOString().slice(0, 10);
}

export function nextUtcMidnight(instant: Date): Date {
  return new Date(Date.UTC(instant.getUTCFullYear(), instant.getUTCMonth(), instant.getUTCDate() + 1));
}

const limitOf = (account: Account, bucket: BucketName): number => (bucket === 'requests' ? account.requestLimit : account.creditLimit);

export function createQuotaBook(): QuotaBook {
  const buckets = new Map<AccountName, Buckets>();
  const ever = new Map<string, number>();

  function today(id: AccountName, now: Date): Buckets {
    const day = utcDay(now);
    let current = buckets.get(id);
    if (!current || current.day !== day) {
      current = { day, requests: 0, credits: 0 };
      buckets.set(id, current);
    }
    return current;
  }

  function status(account: Account, bucket: BucketName, now: Date): QuotaStatus {
    const limit = limitOf(account, bucket);
    const used = today(account.id, now)[bucket];
    return { limit, used, remaining: limit === 0 ? null : Math.max(0, limit - used), reset: nextUtcMidnight(now) };
  }

  return {
    status,
    canSpend(account, bucket, now) {
      const current = status(account, bucket, now);
      return current.remaining === null || current.remaining > 0;
    },
    charge(account, bucket, now) {
      today(account.id, now)[bucket] += 1;
      const key = `${account.id}:${bucket}`;
      ever.set(key, (ever.get(key) ?? 0) + 1);
    },
    setUsed(id, used, now) {
      const current = today(id, now);
      if (used.requestsUsed !== undefined) current.requests = used.requestsUsed;
      if (used.creditsUsed !== undefined) current.credits = used.creditsUsed;
    },
    chargedEver: (id, bucket) => ever.get(`${id}:${bucket}`) ?? 0,
  };
}

/** The `rate_limit` block of meta and of 429 bodies. */
export function rateLimitBlock(q: QuotaStatus): { limit: number; remaining: number; reset: string } {
  return { limit: q.limit, remaining: q.remaining ?? 0, reset: q.reset.toISOString() };
}

export function rateLimitHeaders(q: QuotaStatus, sent: 'all' | 'named' = 'all'): Record<string, string> {
  const block = rateLimitBlock(q);
  return {
    'X-RateLimit-Limit': String(block.limit),
    ...(sent === 'all' ? { 'X-RateLimit-Remaining': String(block.remaining) } : {}),
    'X-RateLimit-Reset': block.reset,
  };
}

export function historyFilesHeaders(q: QuotaStatus): Record<string, string> {
  const block = rateLimitBlock(q);
  return {
    'X-History-Files-Limit': String(block.limit),
    'X-History-Files-Remaining': String(block.remaining),
    'X-History-Files-Reset': block.reset,
  };
}

/** The quota object of /me: limit 0 and remaining null when unlimited. */
export function meQuota(q: QuotaStatus): { limit: number; used: number; remaining: number | null; reset: string } {
  return { limit: q.limit, used: q.used, remaining: q.remaining, reset: q.reset.toISOString() };
}
