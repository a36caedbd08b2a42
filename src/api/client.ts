// gexwh's client of the GEX Data API: one keep-alive undici Pool for the API origin, one typed
// function per endpoint (zod-validated), retries decided by ./retry.ts, quota tracked by ./quota.ts,
// and the two-step file download (302 link, then the storage fetch without credentials).
import { Pool } from './undici-pool.js';
import { ApiSchemaError, LinkAnswerLostError, NetworkError, outageHints, outageMessage, UsageError, type Outage } from '../core/errors.js';
import { AnswerWaitError, attemptWaitMs, formatSeconds, pauseFits } from './call-budget.js';
import { DEFAULT_LINK_LIFETIME_MS, StorageDownloader, type DownloadOptions, type DownloadResult } from './download.js';
import {
  DEFAULT_MAX_JSON_BYTES,
  MAX_MANIFEST_JSON_BYTES,
  DEFAULT_TIMEOUTS,
  describeNetworkError,
  discard,
  firstHeader,
  outcomeOfThrown,
  mayHaveReachedServer,
  readCapped,
  redactSecret,
  type Timeouts,
} from './http.js';
import { checkFileLocation, locationPolicyFor, type LocationPolicy } from './location.js';
import { API_PREFIX, costsFileCredit } from './raw-path.js';
import { costOfPath, parseRateLimitBlock, quotaOfResponse, QuotaTracker, type QuotaSnapshot, type QuotaSpent } from './quota.js';
import { checkFileRef, normaliseRawPath, parseBaseUrl, parseJson, pathOf, queryString, type Query, type RawResponse } from './request-parts.js';
import { decide, retryPolicy, sleep as realSleep, type RetryDecision, type RetryPolicy, type Sleep } from './retry.js';
import { ENDPOINT_SCHEMAS, type EndpointData, type EndpointMeta, type EndpointName, issuePath, parseCoverageRows } from './schemas.js';
import type { FileKind } from '../core/file-kinds.js';
import { definedOnly } from '../core/defined.js';
import { callBudgetOf, checkKey, type ApiClientOptions, type ApiResponse, type CoverageResponse, type FileLink, type RawApiResponse } from './client-types.js';
import { interruptionOf, mayBeCharged, notTheApi } from './answer-kinds.js';
import { ErrorAnswers } from './error-answers.js';

export { API_KEY_PATTERN } from './client-types.js';
export type { ApiClientOptions, ApiResponse, CoverageResponse, FileLink, RawApiResponse } from './client-types.js';
export type { Query } from './request-parts.js';

/** One call as its attempts share it: the stop signal, whether it costs a credit, and when its time is up. */
interface CallState {
  endpoint: string;
  signal: AbortSignal | undefined;
  paid: boolean;
  deadline: number;
}

export function createApiClient(options: ApiClientOptions): ApiClient {
  return new ApiClient(options);
}

export class ApiClient {
  private readonly origin: string;
  private readonly basePath: string;
  private readonly apiKey: string;
  private readonly userAgent: string;
  private readonly timeouts: Timeouts;
  private readonly policy: RetryPolicy;
  private readonly sleep: Sleep;
  private readonly maxJsonBytes: number;
  private readonly locationPolicy: LocationPolicy;
  private readonly now: () => number;
  private readonly signal: AbortSignal | undefined;
  private readonly pool: Pool;
  private readonly storage: StorageDownloader;
  private readonly tracker = new QuotaTracker();
  private readonly errorAnswers: ErrorAnswers;
  private readonly callBudgetMs: number;

  constructor(options: ApiClientOptions) {
    checkKey(options.apiKey);
    const base = parseBaseUrl(options.baseUrl);
    this.origin = base.origin;
    this.locationPolicy = locationPolicyFor(base);
    this.basePath = base.pathname.replace(/\/+$/, '');
    this.apiKey = options.apiKey;
    this.callBudgetMs = callBudgetOf(options);
    this.userAgent = options.userAgent ?? 'gexwh';
    this.timeouts = { ...DEFAULT_TIMEOUTS, ...definedOnly(options.timeouts ?? {}) };
    const { sleep, ...policy } = options.retry ?? {};
    this.policy = retryPolicy(policy);
    this.sleep = sleep ?? realSleep;
    this.maxJsonBytes = options.maxJsonBytes ?? DEFAULT_MAX_JSON_BYTES;
    this.now = options.now ?? Date.now;
    const keySource = options.keySource ?? 'GEX_API_KEY or the file of --api-key-file';
    this.errorAnswers = new ErrorAnswers({ apiKey: this.apiKey, keySource, origin: this.origin, tracker: this.tracker, now: this.now });
    this.signal = options.signal;
    this.pool = new Pool(this.origin, {
      connections: options.connections ?? 8,
      connectTimeout: this.timeouts.connectMs,
      headersTimeout: this.timeouts.headersMs,
      bodyTimeout: this.timeouts.bodyMs,
    });
    this.storage = new StorageDownloader({
      timeouts: this.timeouts,
      policy: this.policy,
      sleep: this.sleep,
      now: this.now,
      linkLifetimeMs: options.linkLifetimeMs ?? DEFAULT_LINK_LIFETIME_MS,
      userAgent: this.userAgent,
      locationPolicy: this.locationPolicy,
    });
  }

  // ---- discovery (free) ----

  exchanges(): Promise<ApiResponse<'exchanges'>> {
    return this.call('exchanges', '/exchanges');
  }

  coins(): Promise<ApiResponse<'coins'>> {
    return this.call('coins', '/coins');
  }

  expirations(exchange: string, coin: string): Promise<ApiResponse<'expirations'>> {
    return this.call('expirations', pathOf('expirations', exchange, coin));
  }

  /** Coverage rows that match the spec in `data`; the others in `rejected`, so one odd row never hides the rest. */
  async coverage(): Promise<CoverageResponse> {
    const response = await this.call('coverage', '/history/coverage');
    const { rows, rejected } = parseCoverageRows(response.data);
    return { ...response, data: rows, rejected };
  }

  async me(): Promise<ApiResponse<'me'>> {
    const response = await this.call('me', '/me');
    // /me is the authoritative quota source; remember it like headers.
    const requests = parseRateLimitBlock(response.data.quota.requests);
    const files = parseRateLimitBlock(response.data.quota.history_files);
    const quota: QuotaSnapshot = { ...response.quota };
    if (requests) quota.requests = requests;
    if (files) quota.files = files;
    this.tracker.observe(quota);
    return { ...response, quota };
  }

  // ---- current data (1 request each) ----

  levels(exchange: string, coin: string, query: { expiration?: string; compare?: string | readonly string[] } = {}): Promise<ApiResponse<'levels'>> {
    const compare = typeof query.compare === 'string' ? query.compare : query.compare?.join(',');
    return this.call('levels', pathOf('levels', exchange, coin), { expiration: query.expiration, compare });
  }

  gexByStrike(exchange: string, coin: string, expiration: string): Promise<ApiResponse<'gexByStrike'>> {
    return this.call('gexByStrike', pathOf('gex', 'by-strike-enhanced', exchange, coin, expiration));
  }

  termOi(exchange: string, coin: string): Promise<ApiResponse<'termOi'>> {
    return this.call('termOi', pathOf('gex', 'term-oi', exchange, coin));
  }

  // ---- history (1 request each) ----

  historyTimestamps(exchange: string, coin: string, date: string): Promise<ApiResponse<'historyTimestamps'>> {
    return this.call('historyTimestamps', pathOf('history', 'timestamps', exchange, coin), { date });
  }

  historyLevels(
    exchange: string,
    coin: string,
    query: { start?: string; end?: string; granularity?: '15m' | '1h' | 'close'; cursor?: string } = {},
  ): Promise<ApiResponse<'historyLevels'>> {
    return this.call('historyLevels', pathOf('history', 'levels', exchange, coin), query);
  }

  historySnapshot(exchange: string, coin: string, query: { at: string; expiration?: string }): Promise<ApiResponse<'historySnapshot'>> {
    return this.call('historySnapshot', pathOf('history', 'snapshot', exchange, coin), query);
  }

  historyFiles(exchange: string, coin: string, query: { start?: string; end?: string } = {}): Promise<ApiResponse<'historyFiles'>> {
    return this.call('historyFiles', pathOf('history', 'files', exchange, coin), query);
  }

  // ---- files (1 credit per link) ----

  /**
   * GET the download path without following the redirect; returns the checked presigned link.
   * `signal` stops it only before the request is sent or between retries (the 302 is what is charged).
   */
  async requestFileLink(exchange: string, coin: string, date: string, file: FileKind, options: { signal?: AbortSignal } = {}): Promise<FileLink> {
    checkFileRef(date, file);
    const path = pathOf('history', 'files', exchange, coin, date, file);
    const response = await this.send(path, path, {}, options.signal);
    if (response.status !== 302) {
      const foreign = notTheApi(response, path, this.origin);
      if (foreign) throw foreign;
      if (response.status >= 400) throw this.errorAnswers.errorOf(response, path);
      throw new ApiSchemaError(path, `expected 302 with a Location header, got HTTP ${response.status}`);
    }
    const quota = quotaOfResponse(response.headers);
    this.tracker.observe(quota);
    this.tracker.countSpent({ credits: 1 }); // the 302 is what the server charges for
    const location = checkFileLocation(firstHeader(response.headers, 'location'), path, this.locationPolicy);
    return { location, issuedAt: new Date(this.now()), quota };
  }

  /**
   * Fetch a link (URL or FileLink) into tempPath with no credentials; see StorageDownloader. The link
   * was paid, so the client's stop signal does not throw it away: the attempt in flight finishes and
   * only its retries are dropped. `options.signal` still aborts the transfer.
   */
  downloadToFile(link: URL | FileLink, tempPath: string, options: DownloadOptions = {}): Promise<DownloadResult> {
    const location = link instanceof URL ? link : link.location;
    const issuedAt = options.issuedAt ?? (link instanceof URL ? undefined : link.issuedAt);
    const stopRetries = this.combinedSignal(options.stopRetries);
    return this.storage.download(location, tempPath, { ...options, issuedAt, ...(stopRetries ? { stopRetries } : {}) });
  }

  // ---- raw (gexwh api PATH) ----

  /** One authenticated GET of any API path (with or without the /api/v1 prefix); the parsed JSON. */
  async get(rawPath: string, query: Query = {}): Promise<RawApiResponse> {
    const { path, query: merged } = normaliseRawPath(rawPath, query);
    if (costsFileCredit(path.judged)) {
      throw new UsageError('file downloads are not done through `gexwh api` (each link costs a file credit); use `gexwh sync`');
    }
    const sent = path.path;
    const response = await this.send(sent, sent, merged);
    const foreign = notTheApi(response, sent, this.origin);
    if (foreign) throw foreign;
    if (response.status < 200 || response.status >= 300) throw this.errorAnswers.errorOf(response, sent);
    // Printed whole by `gexwh api`: a server echoing the key must not get it shown.
    const body = redactSecret(parseJson(response.body, sent), this.apiKey);
    const meta = (body as { meta?: { rate_limit?: unknown } } | null)?.meta;
    const quota = quotaOfResponse(response.headers, meta?.rate_limit);
    this.tracker.observe(quota);
    return { status: response.status, body, quota };
  }

  // ---- state ----

  /** Latest quota state known from any response (a bucket absent = never seen). */
  quota(): QuotaSnapshot {
    return this.tracker.state();
  }

  /** Quota-counted requests (2xx) and file credits (302 links) spent by this client. */
  spent(): QuotaSpent {
    return this.tracker.spent();
  }

  async close(): Promise<void> {
    await Promise.all([this.pool.close(), this.storage.close()]);
  }

  // ---- internals ----

  private async call<E extends EndpointName>(name: E, path: string, query: Query = {}): Promise<ApiResponse<E>> {
    const maxBytes = name === 'historyFiles' ? Math.min(this.maxJsonBytes, MAX_MANIFEST_JSON_BYTES) : this.maxJsonBytes;
    const response = await this.send(path, path, query, undefined, maxBytes);
    const foreign = notTheApi(response, path, this.origin);
    if (foreign) throw foreign;
    if (response.status < 200 || response.status >= 300) throw this.errorAnswers.errorOf(response, path);
    const parsed = ENDPOINT_SCHEMAS[name].safeParse(parseJson(response.body, path));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue ? issuePath(issue.path) || '(root)' : '(root)';
      throw new ApiSchemaError(path, redactSecret(`${field}: ${issue?.message ?? 'invalid'}`, this.apiKey), { field });
    }
    const envelope = parsed.data as { data: EndpointData<E>; meta: EndpointMeta<E> };
    const quota = quotaOfResponse(response.headers, (envelope.meta as { rate_limit?: unknown }).rate_limit);
    this.tracker.observe(quota);
    return { data: envelope.data, meta: envelope.meta, quota };
  }

  /**
   * One GET with the key, retried per policy within the call's time budget; returns the final answer
   * (any status) with its body. A request that costs a credit is charged when the server answers it,
   * so once sent it is never abandoned by the stop signal (its wait still bounds it): its credit is
   * seen and counted. The signal then only prevents the next attempt.
   */
  private async send(endpoint: string, path: string, query: Query, callSignal?: AbortSignal, maxBytes = this.maxJsonBytes): Promise<RawResponse> {
    const target = `${this.basePath}${API_PREFIX}${path}${queryString(query)}`;
    const signal = this.combinedSignal(callSignal);
    const call: CallState = { endpoint, signal, paid: costOfPath(path).credits > 0, deadline: performance.now() + this.callBudgetMs };
    for (let attempt = 1; ; attempt++) {
      let response: RawResponse;
      const waitMs = attemptWaitMs(call.deadline - performance.now(), attempt, this.policy.maxAttempts, this.timeouts.headersMs, call.paid);
      try {
        if (call.paid) this.throwIfStopped(signal);
        if (waitMs === undefined) throw new AnswerWaitError(this.callBudgetMs);
        response = await this.sendOnce(endpoint, target, { signal: call.paid ? undefined : signal, waitMs }, maxBytes);
      } catch (error) {
        await this.pause(this.retryDelayAfter(error, attempt, call), signal);
        continue;
      }
      if (mayBeCharged(response.status)) this.tracker.countAnswered(costOfPath(path).requests);
      const delayMs = this.delayOf(decide(this.policy, attempt, { kind: 'status', status: response.status }), call.deadline);
      if (delayMs === undefined) return { ...response, attempts: attempt };
      await this.pause(delayMs, signal);
    }
  }

  /** After an attempt that threw: how long to wait before the next, or the error that ends the call. */
  private retryDelayAfter(error: unknown, attempt: number, call: CallState): number {
    const outcome = outcomeOfThrown(error, call.signal);
    if (outcome === undefined) throw interruptionOf(call.signal) ?? error;
    if (call.paid && mayHaveReachedServer(error)) {
      // Asking again could pay twice: the caller decides, within its credit budget.
      throw new LinkAnswerLostError(
        `${call.endpoint}: the answer to the file link request was lost (${describeNetworkError(error)}); the server may have charged its credit`,
      );
    }
    const decision = decide(this.policy, attempt, outcome);
    const delayMs = this.delayOf(decision, call.deadline);
    if (delayMs !== undefined) return delayMs;
    const outOfTime = decision.retry ? `; the call's ${formatSeconds(this.callBudgetMs)} s in all (--api-timeout) left no time for another attempt` : '';
    const outage: Outage = {
      service: 'the API',
      host: this.errorAnswers.host(),
      attempts: attempt,
      lastError: `${call.endpoint}: ${describeNetworkError(error)}${outOfTime}`,
    };
    throw new NetworkError(outageMessage(outage), outageHints(outage), { cause: error });
  }

  /** The pause before the next attempt, when the policy retries and the call's budget leaves room for it. */
  private delayOf(decision: RetryDecision, deadline: number): number | undefined {
    return decision.retry && pauseFits(deadline - performance.now(), decision.delayMs) ? decision.delayMs : undefined;
  }

  /** A wait between attempts; a stop by SIGINT/SIGTERM ends it as the interruption it is. */
  private async pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
    try {
      await this.sleep(ms, signal);
    } catch (error) {
      throw interruptionOf(signal) ?? error;
    }
  }

  private throwIfStopped(signal: AbortSignal | undefined): void {
    if (signal?.aborted) throw interruptionOf(signal) ?? signal.reason;
  }

  private async sendOnce(
    endpoint: string,
    target: string,
    attempt: { signal: AbortSignal | undefined; waitMs: number },
    maxBytes: number,
  ): Promise<RawResponse> {
    // The wait covers the connection and the headers; the body has its own timeouts and pace.
    const waiting = new AbortController();
    const timer = setTimeout(() => waiting.abort(new AnswerWaitError(attempt.waitMs)), attempt.waitMs);
    let answer: Awaited<ReturnType<Pool['request']>>;
    try {
      answer = await this.pool.request({
        method: 'GET',
        path: target,
        headers: { 'x-api-key': this.apiKey, 'user-agent': this.userAgent, accept: 'application/json' },
        headersTimeout: attempt.waitMs,
        bodyTimeout: this.timeouts.bodyMs,
        signal: attempt.signal ? AbortSignal.any([attempt.signal, waiting.signal]) : waiting.signal,
      });
    } catch (error) {
      throw waiting.signal.aborted && !attempt.signal?.aborted ? waiting.signal.reason : error;
    } finally {
      clearTimeout(timer);
    }
    const { statusCode, headers, body } = answer;
    if (statusCode >= 300 && statusCode < 400) {
      await discard(body); // a redirect's body is never needed: a few KB drained at most
      return { status: statusCode, headers, body: Buffer.alloc(0) };
    }
    const what = maxBytes === MAX_MANIFEST_JSON_BYTES ? 'a manifest page (at most 400 rows)' : 'an answer';
    const buffer = await readCapped(
      body,
      maxBytes,
      () => new ApiSchemaError(endpoint, `${what} larger than ${maxBytes} bytes; refused, read no further`, { maxBytes }),
      { graceMs: this.timeouts.bodyMs, minBytesPerSecond: this.timeouts.minBytesPerSecond },
    );
    return { status: statusCode, headers, body: buffer };
  }

  private combinedSignal(signal: AbortSignal | undefined): AbortSignal | undefined {
    if (this.signal && signal) return AbortSignal.any([this.signal, signal]);
    return signal ?? this.signal;
  }
}
