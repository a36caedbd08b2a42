// Every error gexwh raises on purpose is one of these classes, and this file alone maps them to exit
// codes (exitCodeOf) and to the stable word scripts match on (errorCodeOf). Commands throw; only the
// CLI entry (src/cli/main.ts) exits.

export const ExitCode = {
  ok: 0,
  unexpected: 1,
  usage: 2,
  auth: 3,
  partial: 4,
  locked: 5,
  sigint: 130,
  sigterm: 143,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export type HintFields = Record<string, unknown>;

/** Base class: a message for the user plus optional hints (printed as `name: value` lines). */
export class GexwhError extends Error {
  readonly hints: HintFields;
  constructor(message: string, hints: HintFields = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.hints = hints;
  }
}

/** Bad input from the user: an option, a config field, a date. Exit 2. */
export class UsageError extends GexwhError {}

/** SQL given to `gexwh query` that is not one read of the warehouse (a write, a file access, SET ...). Exit 2. */
export class RefusedQueryError extends UsageError {}

/** No key, an unreadable key file, a key the API refused (401/403). Exit 3. */
export class AuthError extends GexwhError {}

/** Another process holds the warehouse (lock file or DuckDB's own lock). Exit 5. */
export class LockError extends GexwhError {}

/** Some files failed verification or loading; everything else was committed. Exit 4. */
export class PartialFailureError extends GexwhError {}

/** The warehouse or archive disagrees with the ledger (verify). Exit 4. */
export class IntegrityError extends GexwhError {}

/**
 * The warehouse file cannot be read as a DuckDB database (garbage header, a block failing its
 * checksum). Exit 1 like any unexpected failure, but `gexwh rebuild` recognises it and recovers.
 */
export class DamagedWarehouseError extends GexwhError {}

/**
 * An error answer of the GEX API: HTTP status, the stable `error` slug, the server's message and
 * its hint fields (valid_exchanges, nearest_timestamps, rate_limit, ...).
 */
export class ApiError extends GexwhError {
  readonly status: number;
  readonly slug: string;
  readonly endpoint: string;
  constructor(status: number, slug: string, message: string, endpoint: string, hints: HintFields = {}) {
    super(message, hints);
    this.status = status;
    this.slug = slug;
    this.endpoint = endpoint;
  }
}

/** The daily quota buckets of the API. */
export type QuotaBucketName = 'requests' | 'files';

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

/** A payload that does not match the spec (missing field, wrong type, bad JSON). */
export class ApiSchemaError extends GexwhError {
  readonly endpoint: string;
  constructor(endpoint: string, message: string, hints: HintFields = {}) {
    super(`${endpoint}: ${message}`, hints);
    this.endpoint = endpoint;
  }
}

/** The network or the storage origin failed after every retry the policy allows. */
export class NetworkError extends GexwhError {}

/**
 * A file link request reached the server but its answer was lost (connection reset or closed): the
 * server may have charged the credit. Never retried inside the client; the caller counts the credit
 * and decides whether its budget allows asking once more.
 */
export class LinkAnswerLostError extends NetworkError {}

/**
 * The presigned link can no longer be used (the storage said so, or it is older than its lifetime).
 * The caller asks for a new link, which costs a new file credit.
 */
export class LinkExpiredError extends GexwhError {}

/** The server asked for something gexwh refuses to do (a redirect to file:, a path outside the archive). */
export class UnsafeResponseError extends GexwhError {}

/** More bytes than allowed (announced or streamed): the body cannot be the manifest's file. */
export class BodyTooLargeError extends UnsafeResponseError {}

/** A gzip inflating far past what its declared rows can hold (a decompression bomb). */
export class InflatedTooLargeError extends BodyTooLargeError {}

/** The temp file could not be written (disk full, read-only, forbidden); `cause` has the errno code. */
export class LocalWriteError extends GexwhError {}

/** The sync journal cannot be used as it is (exit 1, naming the file); nothing paid is lost: the archive holds it. */
export class JournalError extends GexwhError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, {}, options);
  }
}

/** The capture journal cannot be used as it is (exit 1, naming the file); nothing paid is lost: the archive holds it. */
export class LiveJournalError extends GexwhError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, {}, options);
  }
}

/**
 * The object store refused the credentials of the AWS chain (unknown access key, bad signature,
 * access denied). Exit 3, like a refused API key; the hints name the endpoint and bucket, never a secret.
 */
export class ObjectStoreAuthError extends GexwhError {}

/** The export's bucket does not exist (or the s3:// address is malformed). Exit 2: fix the --out. */
export class ObjectStoreBucketError extends UsageError {}

/** The object store failed or could not be reached after the SDK's retries. Exit 1; a rerun resumes. */
export class ObjectStoreError extends GexwhError {}

/** `gexwh doctor` found problems; the checks are in the hints. Exit 1. */
export class ChecksFailedError extends GexwhError {}

/** The process was asked to stop (SIGINT/SIGTERM); the run was recorded. */
export class InterruptedError extends GexwhError {
  readonly signal: 'SIGINT' | 'SIGTERM';
  /** `cause`: what the run did before it stopped (a sync's summary), for the CLI to print. */
  constructor(signal: 'SIGINT' | 'SIGTERM', options?: { cause?: unknown }) {
    super(`interrupted by ${signal}`, {}, options);
    this.signal = signal;
  }
}

export function exitCodeOf(error: unknown): ExitCode {
  if (error instanceof UsageError) return ExitCode.usage;
  if (error instanceof AuthError || error instanceof ObjectStoreAuthError) return ExitCode.auth;
  if (error instanceof LockError) return ExitCode.locked;
  if (error instanceof PartialFailureError || error instanceof IntegrityError) return ExitCode.partial;
  if (error instanceof InterruptedError) return error.signal === 'SIGINT' ? ExitCode.sigint : ExitCode.sigterm;
  if (error instanceof ApiError) return apiExitCode(error);
  return ExitCode.unexpected;
}

/** An API answer without a class of its own: refused is auth, a bad request is usage. */
function apiExitCode(error: ApiError): ExitCode {
  if (error.status === 401 || error.status === 403) return ExitCode.auth;
  if (error.status === 400) return ExitCode.usage;
  return ExitCode.unexpected;
}

/** The stable word scripts match on (`{"error": {"code": ...}}`): the API's slug, else the kind. */
export function errorCodeOf(error: unknown): string {
  if (error instanceof ApiError) return error.slug;
  return ERROR_CODES.find(([kind]) => error instanceof kind)?.[1] ?? 'unexpected';
}

/** The word of each kind of error that has no API slug, first match wins. */
const ERROR_CODES: readonly [abstract new (...args: never[]) => Error, string][] = [
  [ObjectStoreBucketError, 'no_such_bucket'],
  [UsageError, 'usage'],
  [AuthError, 'auth'],
  [ObjectStoreAuthError, 'object_store_auth'],
  [ObjectStoreError, 'object_store'],
  [LockError, 'locked'],
  [PartialFailureError, 'partial'],
  [IntegrityError, 'integrity'],
  [DamagedWarehouseError, 'damaged_warehouse'],
  [ApiSchemaError, 'api_schema'],
  [NetworkError, 'network'],
  [UnsafeResponseError, 'unsafe_response'],
  [InterruptedError, 'interrupted'],
  [ChecksFailedError, 'checks_failed'],
];

/** The message of anything thrown: an Error's own, else the value as text. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
