// Errors specific to the API client. They extend the project's classes in src/errors.ts, so
// exitCodeOf() and the CLI's printing keep working on them.
import { ApiError, GexwhError, NetworkError, type HintFields } from '../errors.js';
import type { QuotaBucketName } from './quota.js';

/**
 * 429: a daily bucket is used up (rate_limit_exceeded → requests, history_files_limit_exceeded →
 * files). Never retried: the bucket resets at `resetAt` (midnight UTC), read from the headers or the
 * body's rate_limit hint; undefined when neither said.
 */
export class QuotaExceededError extends ApiError {
  readonly bucket: QuotaBucketName;
  readonly resetAt: Date | undefined;
  constructor(slug: string, message: string, endpoint: string, hints: HintFields, bucket: QuotaBucketName, resetAt?: Date) {
    super(429, slug, message, endpoint, hints);
    this.bucket = bucket;
    this.resetAt = resetAt;
  }
}

/**
 * The presigned link can no longer be used (the storage said so, or it is older than its lifetime).
 * The caller asks for a new link, which costs a new file credit.
 */
export class LinkExpiredError extends GexwhError {}

/**
 * A file link request reached the server but its answer was lost (connection reset or closed): the
 * server may have charged the credit. Never retried inside the client; the caller counts the credit
 * and decides whether its budget allows asking once more.
 */
export class LinkAnswerLostError extends NetworkError {}
