// Public surface of the API client, for the CLI and sync.
export { ApiClient, createApiClient, API_KEY_PATTERN, type CoverageResponse } from './client.js';
export type { ApiClientOptions, ApiResponse, RawApiResponse, FileLink, Query } from './client.js';
export { pathOf } from './request-parts.js';
export type { DownloadOptions, DownloadResult } from './download.js';
export { DEFAULT_LINK_LIFETIME_MS } from './download.js';
export { QuotaExceededError, LinkExpiredError, LinkAnswerLostError } from '../core/errors.js';
export { checkFileLocation, isLoopbackHost, locationPolicyFor, type LocationPolicy } from './location.js';
export { unitsLeft, costOfPath, type QuotaBucket, type QuotaBucketName, type QuotaSnapshot, type QuotaSpent } from './quota.js';
export { decide, isRetryable, backoffDelayMs, retryPolicy, type RetryPolicy, type AttemptOutcome, type RetryDecision, type Sleep } from './retry.js';
export type { Timeouts } from './http.js';
export * from './schemas.js';
