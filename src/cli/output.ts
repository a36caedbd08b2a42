// How results reach the user: a plain table on stdout, or JSON with --json. Logs and progress go to
// stderr so that stdout stays machine-readable.
import { ChecksFailedError, errorCodeOf, exitCodeOf, GexwhError } from '../core/errors.js';
import { formatInstant } from '../time/dates.js';
import { escapeBlock, escapeJson, escapeLine } from './terminal.js';

export { formatInstant };

export type Row = Record<string, unknown>;

export interface Output {
  json: boolean;
  quiet: boolean;
  verbose: boolean;
  /** The command's result: JSON with --json (keys in snake_case), else the given text. */
  result(value: unknown, text: () => string): void;
  /** A line for humans on stderr (suppressed by --quiet). */
  info(line: string): void;
  /** A line only with --verbose. */
  debug(line: string): void;
  warn(line: string): void;
}

let resultWritten = false;

/**
 * Whether a command's result already went to stdout: then, under --json, that result is the one JSON
 * document (a sync that ended partial prints its summary with outcome "partial"), and the entry point
 * adds no error object after it.
 */
export function wasResultWritten(): boolean {
  return resultWritten;
}

/** A new run starts with no result written (a process that runs gexwh more than once: tests). */
export function forgetResult(): void {
  resultWritten = false;
}

export interface OutputFlags {
  json: boolean;
  quiet: boolean;
  verbose: boolean;
  /** The absolute path of a warehouse this command created, once it exists. */
  newWarehouse?: () => string | undefined;
}

export function createOutput(flags: OutputFlags): Output {
  return {
    json: flags.json,
    quiet: flags.quiet,
    verbose: flags.verbose,
    // Results and lines may quote server text: escaped before they reach a terminal.
    result(value, text) {
      resultWritten = true;
      const created = flags.newWarehouse?.();
      if (flags.json) {
        const shown = created !== undefined && isPlainObject(value) ? { warehouseCreated: created, ...value } : value;
        process.stdout.write(`${escapeJson(JSON.stringify(snakeKeys(shown), jsonReplacer, 2))}\n`);
      } else {
        process.stdout.write(`${escapeBlock(created === undefined ? text() : `created a new warehouse at ${created}\n${text()}`)}\n`);
      }
    },
    info(line) {
      if (!flags.quiet) process.stderr.write(`${escapeBlock(line)}\n`);
    },
    debug(line) {
      if (flags.verbose) process.stderr.write(`${escapeBlock(line)}\n`);
    },
    warn(line) {
      process.stderr.write(`warning: ${escapeBlock(line)}\n`);
    },
  };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype;
}

const CAMEL_HUMP = /([a-z0-9])([A-Z])/g;

/** `filesLoaded` → `files_loaded`; snake_case, upper-case words (BTC) and other keys unchanged. */
export function snakeCase(key: string): string {
  return key.replace(CAMEL_HUMP, (_match, before: string, capital: string) => `${before}_${capital.toLowerCase()}`);
}

/**
 * Every key of plain objects and arrays in snake_case, like the API and the SQL columns. Only our own
 * results pass here: query rows and raw API answers are printed as they are.
 */
export function snakeKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeKeys);
  if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [snakeCase(key), snakeKeys(inner)]));
}

/** The one JSON object a failure prints on stdout under --json. */
export function errorJson(error: unknown, exitCode: number = exitCodeOf(error)): { error: { code: string; message: string; hint: unknown; exitCode: number } } {
  const hints = error instanceof GexwhError && Object.keys(error.hints).length > 0 ? error.hints : null;
  const message = error instanceof Error ? error.message : String(error);
  return { error: { code: errorCodeOf(error), message, hint: hints, exitCode } };
}

/** BigInt (DuckDB BIGINT) and Date values as JSON. */
export function jsonReplacer(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  return value;
}

export function formatCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (value instanceof Date) return formatInstant(value);
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : String(Math.round(value * 1e6) / 1e6);
  if (Array.isArray(value)) return value.map(formatCell).join(',');
  if (typeof value === 'object') return JSON.stringify(value, jsonReplacer);
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- objects, arrays and dates are handled above: a scalar is left
  return String(value);
}

/** A left-aligned text table with a header line; numbers right-aligned. */
export function formatTable(rows: readonly Row[], columns?: readonly string[]): string {
  const cols = columns ?? (rows[0] ? Object.keys(rows[0]) : []);
  if (cols.length === 0) return '(no rows)';
  // Column names come from the SQL or the data as much as cells do.
  const headers = cols.map(escapeLine);
  const cells = rows.map((row) => cols.map((c) => escapeLine(formatCell(row[c]))));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)));
  const numeric = cols.map(
    (c) => rows.length > 0 && rows.every((r) => r[c] === null || r[c] === undefined || typeof r[c] === 'number' || typeof r[c] === 'bigint'),
  );
  const line = (values: string[]) =>
    values
      .map((v, i) => (numeric[i] ? v.padStart(widths[i]!) : v.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

/** An error as the user sees it: the message, the API slug and every hint, never a stack. */
export function describeError(error: unknown, verbose: boolean): string {
  if (error instanceof GexwhError) {
    // Slug, message and hints may all come from the server: each stays on its one line.
    const slug = 'slug' in error && typeof error.slug === 'string' ? `${escapeLine(error.slug)}: ` : '';
    // doctor printed its checks as a table already; they stay in the hints for --json.
    const hints = error instanceof ChecksFailedError ? [] : Object.entries(error.hints).map(([k, v]) => `  ${escapeLine(k)}: ${escapeLine(formatCell(v))}`);
    return [`error: ${slug}${escapeLine(error.message)}`, ...hints].join('\n');
  }
  const message = error instanceof Error ? error.message : String(error);
  const stack = verbose && error instanceof Error && error.stack ? `\n${escapeBlock(error.stack)}` : '';
  return `error: unexpected failure: ${escapeLine(message)}${stack}`;
}
