// The API listener: routing, authentication, faults, quota gate and the {data, meta} envelope.
// The order of checks: fault → route (404) → method (405) → auth (401/403) → route validation and
// data (400/404) → quota gate (429) → charge → answer. See quota.ts for what costs what.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Account } from './auth.js';
import type { Route, RouteContext, RouteResult, ServerState } from './context.js';
import type { FaultAction } from './faults.js';
import { deliver, dropConnection, HttpError, sendError, sendJson } from './http.js';
import { checkQueryNames } from './params.js';
import { historyFilesHeaders, rateLimitBlock, rateLimitHeaders, type BucketName } from './quota.js';

export const API_PREFIX = '/api/v1';

const EXPOSED_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'X-History-Files-Limit',
  'X-History-Files-Remaining',
  'X-History-Files-Reset',
].join(', ');

export interface ApiCounters {
  hits: number;
}

export interface ApiDeps {
  state: ServerState;
  routes: readonly Route[];
  counters: ApiCounters;
  recordHit(pathAndSearch: string): void;
}

interface Matched {
  route: Route;
  params: Record<string, string>;
}

function matchRoute(routes: readonly Route[], pathname: string): Matched | undefined {
  if (!pathname.startsWith(`${API_PREFIX}/`)) return undefined;
  const raw = pathname.slice(API_PREFIX.length + 1).split('/');
  let segments: string[];
  try {
    segments = raw.map((s) => decodeURIComponent(s));
  } catch {
    return undefined;
  }
  for (const route of routes) {
    if (route.path.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const fits = route.path.every((part, i) => {
      const segment = segments[i]!;
      if (part.startsWith(':')) {
        params[part.slice(1)] = segment;
        return segment !== '';
      }
      return part === segment;
    });
    if (fits) return { route, params };
  }
  return undefined;
}

const BUCKET_OF: Record<'request' | 'credit', BucketName> = { request: 'requests', credit: 'credits' };

function quotaHeaders(state: ServerState, route: Route, account: Account, now: Date, fault?: FaultAction): Record<string, string> {
  if (fault?.kind === 'missing_quota_headers') return {};
  if (route.cost === 'credit') return historyFilesHeaders(state.quota.status(account, 'credits', now));
  if (route.rateLimit) return rateLimitHeaders(state.quota.status(account, 'requests', now), state.rateLimitHeaders);
  return {};
}

/** 429 when the bucket is empty; otherwise charges one unit (unless the quota service is "down"). */
function gateAndCharge(state: ServerState, route: Route, account: Account, now: Date, fault?: FaultAction): void {
  if (route.cost === 'free' || fault?.kind === 'missing_quota_headers') return;
  const bucket = BUCKET_OF[route.cost];
  if (!state.quota.canSpend(account, bucket, now)) {
    const status = state.quota.status(account, bucket, now);
    const isFiles = bucket === 'credits';
    throw new HttpError(
      429,
      isFiles ? 'history_files_limit_exceeded' : 'rate_limit_exceeded',
      isFiles ? 'Daily history file credits used up.' : 'Daily request quota used up.',
      { rate_limit: rateLimitBlock(status) },
      isFiles ? historyFilesHeaders(status) : rateLimitHeaders(status, state.rateLimitHeaders),
    );
  }
  state.quota.charge(account, bucket, now);
}

async function answer(res: ServerResponse, ctx: RouteContext, route: Route, result: RouteResult): Promise<void> {
  const { state, account, now, fault } = ctx;
  const headers = quotaHeaders(state, route, account, now, fault);
  if (result.kind === 'redirect') {
    const redirectHeaders: Record<string, string> = { ...headers, 'Cache-Control': 'no-store' };
    if (result.location !== null) redirectHeaders.Location = result.location;
    return deliver(res, 302, redirectHeaders, Buffer.alloc(0));
  }
  const meta: Record<string, unknown> = { timestamp: now.toISOString(), ...result.meta };
  if (route.rateLimit && fault?.kind !== 'missing_quota_headers') {
    meta.rate_limit = rateLimitBlock(state.quota.status(account, 'requests', now));
  }
  return sendJson(res, 200, { data: result.data, meta }, headers, fault);
}

/** Answers of the status/body faults: never charged; a 429 still carries its rate_limit hint. */
function faultAnswer(deps: ApiDeps, req: IncomingMessage, res: ServerResponse, fault: FaultAction, isDownload: boolean): Promise<void> {
  if (fault.kind === 'body') {
    return deliver(res, fault.status, { 'Content-Type': fault.contentType ?? 'application/json; charset=utf-8' }, Buffer.from(fault.body));
  }
  if (fault.kind !== 'status') throw new Error('not a canned-answer fault');
  const { state } = deps;
  const now = state.clock.now();
  const slug = fault.error ?? defaultSlug(fault.status, isDownload);
  let hints: Record<string, unknown> = {};
  let headers: Record<string, string> = {};
  const account = fault.status === 429 ? state.auth.tryAuthenticate(req, now) : undefined;
  if (account) {
    const bucket: BucketName = isDownload ? 'credits' : 'requests';
    const status = state.quota.status(account, bucket, now);
    hints = { rate_limit: rateLimitBlock(status) };
    headers = isDownload ? historyFilesHeaders(status) : rateLimitHeaders(status, state.rateLimitHeaders);
  }
  if (fault.retryAfter !== undefined) headers['Retry-After'] = fault.retryAfter;
  return sendError(res, new HttpError(fault.status, slug, fault.message ?? `Injected ${fault.status}.`, hints, headers));
}

function defaultSlug(status: number, isDownload: boolean): string {
  if (status === 503) return isDownload ? 'files_unavailable' : 'market_unavailable';
  if (status === 429) return isDownload ? 'history_files_limit_exceeded' : 'rate_limit_exceeded';
  const slugs: Record<number, string> = { 400: 'invalid_param', 401: 'unauthorized', 403: 'subscription_required', 404: 'no_data', 405: 'method_not_allowed' };
  return slugs[status] ?? 'internal_error';
}

const DOWNLOAD_RE = /^\/api\/v1\/history\/files\/[^/]+\/[^/]+\/[^/]+\/[^/]+$/;

async function handle(deps: ApiDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://api.invalid');
  const pathAndSearch = url.pathname + url.search;
  deps.counters.hits += 1;
  deps.recordHit(pathAndSearch);
  res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);

  const fault = deps.state.faults.take('api', pathAndSearch);
  if (fault?.kind === 'drop') return dropConnection(req);
  if (fault?.kind === 'delay') await new Promise((resolve) => setTimeout(resolve, fault.ms));
  if (fault?.kind === 'hold') await fault.until.catch(() => undefined);
  if (fault?.kind === 'status' || fault?.kind === 'body') {
    return faultAnswer(deps, req, res, fault, DOWNLOAD_RE.test(url.pathname));
  }

  const matched = matchRoute(deps.routes, url.pathname);
  if (!matched) throw new HttpError(404, 'not_found', `No endpoint at ${url.pathname}.`);
  if (req.method !== 'GET') {
    throw new HttpError(405, 'method_not_allowed', `Method ${req.method ?? ''} is not allowed; use GET.`, {}, { Allow: 'GET' });
  }
  const { state } = deps;
  const now = state.clock.now();
  const account = state.auth.authenticate(req, now);
  const { route } = matched;
  const ctx: RouteContext = { req, params: matched.params, query: url.searchParams, account, now, fault, state };
  const result = await runRoute(ctx, route);
  if (fault?.kind === 'drop_after_charge') return dropConnection(req);
  if (fault?.kind === 'hold_after_charge') {
    fault.charged?.();
    await fault.until.catch(() => undefined);
  }
  return answer(res, ctx, route, result);
}

/** The route's answer, charged to the account's quota; its errors carry the quota headers. */
async function runRoute(ctx: RouteContext, route: Route): Promise<RouteResult> {
  const { state, account, now, fault } = ctx;
  try {
    checkQueryNames(ctx.query, route.query);
    const result = await route.handle(ctx);
    gateAndCharge(state, route, account, now, fault);
    return result;
  } catch (error) {
    if (error instanceof HttpError && error.status !== 429) {
      if (state.chargeFailedRequests) chargeFailure(state, route, account, now, error.status, fault);
      // Errors of a counted endpoint still tell the caller where its quota stands.
      Object.assign(error.headers, quotaHeaders(state, route, account, now, fault));
    }
    throw error;
  }
}

/** With chargeFailedRequests, a 4xx of a quota-counted endpoint costs its request like a 2xx (while any is left). */
function chargeFailure(state: ServerState, route: Route, account: Account, now: Date, status: number, fault?: FaultAction): void {
  if (route.cost !== 'request' || status < 400 || status > 499 || fault?.kind === 'missing_quota_headers') return;
  if (state.quota.canSpend(account, 'requests', now)) state.quota.charge(account, 'requests', now);
}

export function createApiServer(deps: ApiDeps): Server {
  return createServer((req, res) => {
    handle(deps, req, res).catch((error: unknown) => {
      if (res.headersSent) return void res.destroy();
      const answerError = error instanceof HttpError ? error : new HttpError(500, 'internal_error', 'The emulator failed to answer.');
      if (!(error instanceof HttpError)) console.error('gexwh emulator:', error);
      void sendError(res, answerError);
    });
  });
}
