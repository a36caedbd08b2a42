// The API's error answers turned into gexwh's errors: the server's slug, message and hints kept (the key
// redacted), a 429 naming the bucket used up and when it resets, a 5xx as an outage, a 401 with what to check.
import { ApiError, ApiUnavailableError, outageHints, outageMessage, QuotaExceededError, type Outage } from '../core/errors.js';
import { firstHeader, redactSecret } from './http.js';
import { parseQuotaHeaders, parseRateLimitBlock, parseReset, quotaOfResponse, type QuotaTracker } from './quota.js';
import { bucketOf429, errorBodyOf, parseRetryAfter, type RawResponse } from './request-parts.js';

/** What the error answers need from the client: the key to redact and name, the API's origin, its quota tracker and clock. */
export interface ErrorAnswersDeps {
  apiKey: string;
  keySource: string;
  origin: string;
  tracker: QuotaTracker;
  now: () => number;
}

export class ErrorAnswers {
  private readonly apiKey: string;
  private readonly keySource: string;
  private readonly origin: string;
  private readonly tracker: QuotaTracker;
  private readonly now: () => number;

  constructor(deps: ErrorAnswersDeps) {
    this.apiKey = deps.apiKey;
    this.keySource = deps.keySource;
    this.origin = deps.origin;
    this.tracker = deps.tracker;
    this.now = deps.now;
  }

  /** An error answer → ApiError (or QuotaExceededError for 429), with the server's slug and hints. */
  errorOf(response: RawResponse, endpoint: string): ApiError {
    const { slug, message, hints } = redactSecret(errorBodyOf(response), this.apiKey);
    this.tracker.observe(quotaOfResponse(response.headers));
    if (response.status >= 500) return this.unavailableError(response, slug, message, endpoint, hints);
    if (response.status === 401) return new ApiError(401, slug, `${message} (HTTP 401: the API refused the key). ${this.keyAdvice()}`, endpoint, hints);
    if (response.status !== 429) return new ApiError(response.status, slug, message, endpoint, hints);
    const bucket = bucketOf429(slug, response.headers);
    const fromHeaders = parseQuotaHeaders(response.headers, bucket);
    const fromBody = parseRateLimitBlock(hints.rate_limit);
    const bucketState = fromHeaders ?? fromBody;
    if (bucketState) this.tracker.observe({ [bucket]: bucketState });
    const resetAt = bucketState?.reset ?? parseReset((hints.rate_limit as { reset?: unknown } | undefined)?.reset) ?? undefined;
    const what = bucket === 'files' ? "the day's file credits are used up" : "the day's request quota is used up";
    const when = resetAt === undefined ? 'see gexwh me for when it resets' : `it resets at ${resetAt.toISOString()}`;
    return new QuotaExceededError(slug, `${message} (HTTP 429: ${what}; ${when})`, endpoint, hints, bucket, resetAt);
  }

  /** A 5xx that outlasted the retries: an outage the user can only wait out, said with its facts. */
  private unavailableError(response: RawResponse, slug: string, message: string, endpoint: string, hints: Record<string, unknown>): ApiUnavailableError {
    const retryAfterSeconds = parseRetryAfter(firstHeader(response.headers, 'retry-after'), this.now());
    const outage: Outage = {
      service: 'the API',
      host: this.host(),
      attempts: response.attempts ?? 1,
      lastStatus: response.status,
      lastError: `${endpoint}: ${message}`,
      ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
    };
    return new ApiUnavailableError(response.status, slug, outageMessage(outage), endpoint, { ...hints, ...outageHints(outage) });
  }

  /** What to check when the server refuses the key: it alone decides what a valid key looks like. */
  private keyAdvice(): string {
    return (
      `Check the key in ${this.keySource}: the whole key as the account page showed it at creation, for the API at ${this.host()}; ` +
      `a revoked or lost key cannot be recovered and must be replaced by a new one`
    );
  }

  /** The API's host (and port) for messages: never a path, a query or anything secret. */
  host(): string {
    return new URL(this.origin).host;
  }
}
