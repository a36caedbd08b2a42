export declare const ExitCode: {
    readonly ok: 0;
    readonly unexpected: 1;
    readonly usage: 2;
    readonly auth: 3;
    readonly partial: 4;
    readonly locked: 5;
    readonly unreachable: 6;
    /** A `query` stopped by its --timeout: the code timeout(1) exits with. */
    readonly timeout: 124;
    readonly sigint: 130;
    readonly sigterm: 143;
};
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
export type HintFields = Record<string, unknown>;
/** Base class: a message for the user plus optional hints (printed as `name: value` lines). */
export declare class GexwhError extends Error {
    readonly hints: HintFields;
    constructor(message: string, hints?: HintFields, options?: {
        cause?: unknown;
    });
}
/** Bad input from the user: an option, a config field, a date. Exit 2. */
export declare class UsageError extends GexwhError {
}
/** SQL given to `gexwh query` that is not one read of the warehouse (a write, a file access, SET ...). Exit 2. */
export declare class RefusedQueryError extends UsageError {
}
/**
 * A warehouse the sandboxed reader will not serve: its own SQL (a view, a macro) reached for a file
 * outside it, or a file beside it is a link. A warehouse may come from someone else. Exit 2.
 */
export declare class UnsafeWarehouseError extends UsageError {
}
/** No key, an unreadable key file, a key the API refused (401/403). Exit 3. */
export declare class AuthError extends GexwhError {
}
/** Another process holds the warehouse (lock file or DuckDB's own lock). Exit 5. */
export declare class LockError extends GexwhError {
}
/** Some files failed verification or loading; everything else was committed. Exit 4. */
export declare class PartialFailureError extends GexwhError {
}
/** The warehouse or archive disagrees with the ledger (verify). Exit 4. */
export declare class IntegrityError extends GexwhError {
}
/**
 * The warehouse file cannot be read as a DuckDB database (garbage header, a block failing its
 * checksum). Exit 1 like any unexpected failure, but `gexwh rebuild` recognises it and recovers.
 */
export declare class DamagedWarehouseError extends GexwhError {
}
/**
 * An error answer of the GEX API: HTTP status, the stable `error` slug, the server's message and
 * its hint fields (valid_exchanges, nearest_timestamps, rate_limit, ...).
 */
export declare class ApiError extends GexwhError {
    readonly status: number;
    readonly slug: string;
    readonly endpoint: string;
    constructor(status: number, slug: string, message: string, endpoint: string, hints?: HintFields);
}
/** The daily quota buckets of the API. */
export type QuotaBucketName = 'requests' | 'files';
/**
 * 429: a daily bucket is used up (rate_limit_exceeded → requests, history_files_limit_exceeded →
 * files). Never retried: the bucket resets at `resetAt` (midnight UTC), read from the headers or the
 * body's rate_limit hint; undefined when neither said.
 */
export declare class QuotaExceededError extends ApiError {
    readonly bucket: QuotaBucketName;
    readonly resetAt: Date | undefined;
    constructor(slug: string, message: string, endpoint: string, hints: HintFields, bucket: QuotaBucketName, resetAt?: Date);
}
/** A payload that does not match the spec (missing field, wrong type, bad JSON). */
export declare class ApiSchemaError extends GexwhError {
    readonly endpoint: string;
    constructor(endpoint: string, message: string, hints?: HintFields);
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
export declare function outageMessage(outage: Outage): string;
export declare function outageHints(outage: Outage): HintFields;
/** The network or the storage origin failed after every retry the policy allows. Exit 6. */
export declare class NetworkError extends GexwhError {
}
/** The API answered 5xx to every attempt the retry policy allows. Exit 6; the slug is the server's. */
export declare class ApiUnavailableError extends ApiError {
}
/**
 * A file link request reached the server but its answer was lost (connection reset or closed): the
 * server may have charged the credit. Never retried inside the client; the caller counts the credit
 * and decides whether its budget allows asking once more.
 */
export declare class LinkAnswerLostError extends NetworkError {
}
/**
 * The presigned link can no longer be used (the storage said so, or it is older than its lifetime).
 * The caller asks for a new link, which costs a new file credit.
 */
export declare class LinkExpiredError extends GexwhError {
}
/** The server asked for something gexwh refuses to do (a redirect to file:, a path outside the archive). */
export declare class UnsafeResponseError extends GexwhError {
}
/** More bytes than allowed (announced or streamed): the body cannot be the manifest's file. */
export declare class BodyTooLargeError extends UnsafeResponseError {
}
/** A gzip inflating far past what its declared rows can hold (a decompression bomb). */
export declare class InflatedTooLargeError extends BodyTooLargeError {
}
/** The temp file could not be written (disk full, read-only, forbidden); `cause` has the errno code. */
export declare class LocalWriteError extends GexwhError {
}
/** The sync journal cannot be used as it is (exit 1, naming the file); nothing paid is lost: the archive holds it. */
export declare class JournalError extends GexwhError {
    constructor(message: string, options?: {
        cause?: unknown;
    });
}
/** The capture journal cannot be used as it is (exit 1, naming the file); nothing paid is lost: the archive holds it. */
export declare class LiveJournalError extends GexwhError {
    constructor(message: string, options?: {
        cause?: unknown;
    });
}
/**
 * The object store refused the credentials of the AWS chain (unknown access key, bad signature,
 * access denied). Exit 3, like a refused API key; the hints name the endpoint and bucket, never a secret.
 */
export declare class ObjectStoreAuthError extends GexwhError {
}
/** The export's bucket does not exist (or the s3:// address is malformed). Exit 2: fix the --out. */
export declare class ObjectStoreBucketError extends UsageError {
}
/** The object store failed or could not be reached after the SDK's retries. Exit 6; a rerun resumes. */
export declare class ObjectStoreError extends GexwhError {
}
/** `gexwh doctor` found problems; the checks are in the hints. Exit 1. */
export declare class ChecksFailedError extends GexwhError {
}
/** The process was asked to stop (SIGINT/SIGTERM); the run was recorded. */
export declare class InterruptedError extends GexwhError {
    readonly signal: 'SIGINT' | 'SIGTERM';
    constructor(signal: 'SIGINT' | 'SIGTERM', message?: string);
}
/** A `query` statement stopped by DuckDB's interrupt once its --timeout passed. Exit 124. */
export declare class QueryTimeoutError extends GexwhError {
}
export declare function exitCodeOf(error: unknown): ExitCode;
/** The stable word scripts match on (`{"error": {"code": ...}}`): the API's slug, else the kind. */
export declare function errorCodeOf(error: unknown): string;
/**
 * A Node file-system error on a path (a folder given where a file goes, a read-only disk) as the
 * usage error it is: the user named the path and can fix it. Anything else: undefined.
 */
export declare function usageErrorOfFs(error: unknown): UsageError | undefined;
/** The message of anything thrown: an Error's own, else the value as text. */
export declare function errorMessage(error: unknown): string;
