// Every error gexwh raises on purpose is one of these classes, and this file alone maps them to exit
// codes (exitCodeOf) and to the stable word scripts match on (errorCodeOf). Commands throw; only the
// CLI entry (src/cli/main.ts) exits.
import { resolve } from 'node:path';

export const ExitCode = {
  ok: 0,
  unexpected: 1,
  usage: 2,
  auth: 3,
  partial: 4,
  locked: 5,
  unreachable: 6,
  /** A `query` stopped by its --timeout: the code timeout(1) exits with. */
  timeout: 124,
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

/**
 * A warehouse the sandboxed reader will not serve: its own SQL (a view, a macro) reached for a file
 * outside it, or a file beside it is a link. A warehouse may come from someone else. Exit 2.
 */
export class UnsafeWarehouseError extends UsageError {}

/**
 * A config file found in the working folder or a parent that another user owns, or that its group
 * or others may write: its baseUrl would decide where the API key goes. Exit 2.
 */
export class UntrustedConfigError extends UsageError {}

/**
 * A write under one of gexwh's roots (the archive, its quarantine, an export folder) that would go
 * through a link out of the root, or over a name that must be new. Nothing is written. Exit 2.
 */
export class OutsideRootError extends UsageError {}

/** No key, an unreadable key file, a key the API refused (401/403), a daily quota used up (429). Exit 3. */
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
 * `--db` names a file that is not a DuckDB warehouse of gexwh (a text file, another program's
 * database). Exit 2: the path is wrong; the file is left untouched.
 */
export class NotAWarehouseError extends UsageError {}

/**
 * No warehouse file where a command that only reads it looks: exit 2, nothing created. The path is
 * absolute, so a command run from the wrong folder shows at once where it looked; the CLI adds
 * where the path came from and the config file search.
 */
export class NoWarehouseError extends UsageError {
  readonly dbPath: string;
  /** `next`: what to do instead, when more than "run gexwh sync first" applies. */
  constructor(dbPath: string, command?: string, options?: { cause?: unknown; next?: string }) {
    const path = resolve(dbPath);
    const { next, ...rest } = options ?? {};
    super(
      `${command === undefined ? '' : `${command}: `}no warehouse at ${path} (run gexwh sync first, or pass --db)`,
      { db: path, ...(next ? { next } : {}) },
      rest,
    );
    this.dbPath = path;
  }
}

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

/**
 * What a user needs when a service is down: where, what it last said, that nothing was lost, and when
 * a rerun makes sense. The hints carry the same facts for scripts.
 */
export interface Outage {
  /** 'the API' or 'the storage' or 'the object store'. */
  service: string;
  host: string;
  attempts: number;
  /** The last HTTP status, absent when no answer came at all. */
  lastStatus?: number;
  /** The last answer's own words, or the network error's. */
  lastError: string;
  /** Seconds the server asked to wait (Retry-After), when it said. */
  retryAfterSeconds?: number;
}

export function outageMessage(outage: Outage): string {
  const what = outage.lastStatus === undefined ? `could not be reached (${outage.lastError})` : `kept failing (HTTP ${outage.lastStatus}: ${outage.lastError})`;
  const when =
    outage.retryAfterSeconds === undefined
      ? 'run the same command again later'
      : `run the same command again in ${outage.retryAfterSeconds} s or more (the server's Retry-After)`;
  const check = outage.lastStatus === undefined ? '; if it persists, check the base URL and the network' : '';
  return `${outage.service} at ${outage.host} ${what} after ${outage.attempts} attempt(s); ${when}${check}`;
}

/**
 * Added to an outage (exit 6) by the commands that pay for files, where it is the worry; from me,
 * status or plan it would promise files nothing was buying (src/cli/run.ts adds it).
 */
export const PAID_FILES_KEPT = 'Nothing was lost: every file paid so far is archived and recorded';

export function outageHints(outage: Outage): HintFields {
  return {
    host: outage.host,
    attempts: outage.attempts,
    ...(outage.lastStatus === undefined ? {} : { last_status: outage.lastStatus }),
    last_error: outage.lastError,
    ...(outage.retryAfterSeconds === undefined ? {} : { retry_after_seconds: outage.retryAfterSeconds }),
  };
}

/** The network or the storage origin failed after every retry the policy allows. Exit 6. */
export class NetworkError extends GexwhError {}

/** The API answered 5xx to every attempt the retry policy allows. Exit 6; the slug is the server's. */
export class ApiUnavailableError extends ApiError {}

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

/**
 * A journal file gexwh does not read (a link, a FIFO or device, more bytes than a journal can hold):
 * exit 2 naming it. It is set aside; the paid files it listed are still in the archive.
 */
export class JournalFileRefusedError extends UsageError {}

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

/** The object store failed or could not be reached after the SDK's retries. Exit 6; a rerun resumes. */
export class ObjectStoreError extends GexwhError {}

/** `gexwh doctor` found problems; the checks are in the hints. Exit 1. */
export class ChecksFailedError extends GexwhError {}

/** The process was asked to stop (SIGINT/SIGTERM); the run was recorded. */
export class InterruptedError extends GexwhError {
  readonly signal: 'SIGINT' | 'SIGTERM';
  /** `message`: what the user is told (default: interrupted by SIGNAL); `cause`: what the run did before it stopped (a sync's summary), for the CLI to print. */
  constructor(signal: 'SIGINT' | 'SIGTERM', options: { message?: string; cause?: unknown } = {}) {
    super(options.message ?? `interrupted by ${signal}`, {}, options.cause === undefined ? undefined : { cause: options.cause });
    this.signal = signal;
  }
}

/** A `query` statement stopped by DuckDB's interrupt once its --timeout passed. Exit 124. */
export class QueryTimeoutError extends GexwhError {}

export function exitCodeOf(error: unknown): ExitCode {
  if (error instanceof InterruptedError) return error.signal === 'SIGINT' ? ExitCode.sigint : ExitCode.sigterm;
  const kind = EXIT_CODES.find(([type]) => error instanceof type);
  if (kind !== undefined) return kind[1];
  if (error instanceof ApiError) return apiExitCode(error);
  return ExitCode.unexpected;
}

/** The exit code of each kind of error, first match wins (a subclass before its base). */
const EXIT_CODES: readonly [abstract new (...args: never[]) => Error, ExitCode][] = [
  [UsageError, ExitCode.usage],
  [AuthError, ExitCode.auth],
  // A daily bucket of the plan used up where a command cannot go on without it (coverage, /me, api):
  // the plan's limit, like a 403; a sync's own 429 defers files instead and exits 0.
  [QuotaExceededError, ExitCode.auth],
  [ObjectStoreAuthError, ExitCode.auth],
  [LockError, ExitCode.locked],
  [PartialFailureError, ExitCode.partial],
  [IntegrityError, ExitCode.partial],
  [NetworkError, ExitCode.unreachable],
  [ApiUnavailableError, ExitCode.unreachable],
  [ObjectStoreError, ExitCode.unreachable],
  [QueryTimeoutError, ExitCode.timeout],
];

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
  [UnsafeWarehouseError, 'unsafe_warehouse'],
  [UntrustedConfigError, 'untrusted_config'],
  [OutsideRootError, 'outside_root'],
  [NotAWarehouseError, 'not_a_warehouse'],
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
  [QueryTimeoutError, 'timeout'],
  [ChecksFailedError, 'checks_failed'],
];

/** What to tell a user whose path the file system refused, by errno code. */
const FS_REFUSALS: Record<string, (path: string) => string> = {
  EISDIR: (path) => `${path} is a folder where a file is expected; give a file path`,
  ENOTDIR: (path) => `${path} (or a folder on its way) is a file where a folder is expected; give a folder path, or move that file away`,
  EACCES: (path) => `permission denied on ${path}; choose a path you may write, or fix its permissions`,
  EPERM: (path) => `operation not permitted on ${path}; choose a path you may write, or fix its permissions`,
  EROFS: (path) => `${path} is on a read-only file system; choose a path on a writable disk`,
  ENAMETOOLONG: (path) => `the path ${path} is too long for the file system; choose a shorter one`,
  ELOOP: (path) => `${path} goes through too many symbolic links; give the real path`,
};

/**
 * A Node file-system error on a path (a folder given where a file goes, a read-only disk) as the
 * usage error it is: the user named the path and can fix it. Anything else: undefined.
 */
export function usageErrorOfFs(error: unknown): UsageError | undefined {
  if (!(error instanceof Error) || error instanceof GexwhError) return undefined;
  const { code, path: source, dest } = error as NodeJS.ErrnoException & { dest?: string };
  // A rename's refusal is about where it was going (the user's --out), not the temp file it moved.
  const path = dest ?? source;
  // mkdir finding a file in its way is the same mistake as a file on the way to a folder.
  const refusal = code === undefined ? undefined : FS_REFUSALS[code === 'EEXIST' && (error as NodeJS.ErrnoException).syscall === 'mkdir' ? 'ENOTDIR' : code];
  if (refusal === undefined || typeof path !== 'string') return undefined;
  return new UsageError(refusal(path), { path, code }, { cause: error });
}

/** The message of anything thrown: an Error's own, else the value as text. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
