// Every error gexwh raises on purpose is one of these classes. Commands throw; only the CLI entry
// (src/cli/main.ts) turns them into exit codes, through exitCodeOf().

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

/** The server asked for something gexwh refuses to do (a redirect to file:, a path outside the archive). */
export class UnsafeResponseError extends GexwhError {}

/** `gexwh doctor` found problems; the checks are in the hints. Exit 1. */
export class ChecksFailedError extends GexwhError {}

/** The process was asked to stop (SIGINT/SIGTERM); the run was recorded. */
export class InterruptedError extends GexwhError {
  readonly signal: 'SIGINT' | 'SIGTERM';
  constructor(signal: 'SIGINT' | 'SIGTERM') {
    super(`interrupted by ${signal}`);
    this.signal = signal;
  }
}

export function exitCodeOf(error: unknown): ExitCode {
  if (error instanceof UsageError) return ExitCode.usage;
  if (error instanceof AuthError) return ExitCode.auth;
  if (error instanceof LockError) return ExitCode.locked;
  if (error instanceof PartialFailureError || error instanceof IntegrityError) return ExitCode.partial;
  if (error instanceof InterruptedError) return error.signal === 'SIGINT' ? ExitCode.sigint : ExitCode.sigterm;
  if (error instanceof ApiError) {
    if (error.status === 401 || error.status === 403) return ExitCode.auth;
    if (error.status === 400) return ExitCode.usage;
  }
  return ExitCode.unexpected;
}

/** The stable word scripts match on (`{"error": {"code": ...}}`): the API's slug, else the kind. */
export function errorCodeOf(error: unknown): string {
  if (error instanceof ApiError) return error.slug;
  return ERROR_CODES.find(([kind]) => error instanceof kind)?.[1] ?? 'unexpected';
}

/** The word of each kind of error that has no API slug, first match wins. */
const ERROR_CODES: readonly [abstract new (...args: never[]) => Error, string][] = [
  [UsageError, 'usage'],
  [AuthError, 'auth'],
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
