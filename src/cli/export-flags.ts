// `gexwh export`'s flags checked where they are parsed: a bad value is a UsageError (exit 2) naming
// it and what is allowed, before the warehouse is opened or any file is touched.
import { statSync } from 'node:fs';
import { UsageError } from '../core/errors.js';
import { dateProblem } from '../time/dates.js';
import { SYMBOL_PATTERN, SYMBOL_RULE } from '../core/names.js';
import { EXCHANGES, isExchange } from '../core/pairs.js';
import type { ExportOptions } from '../export/export.js';
import { EXPORT_FORMATS, EXPORT_TABLES, type ExportTable } from '../export/tables.js';
import { isS3Url, parseS3Url } from '../export/s3-url.js';

export interface ExportFlags {
  out: string;
  format?: string;
  table?: string[];
  since?: string;
  until?: string;
  exchange?: string[];
  symbol?: string[];
  full?: boolean;
  force?: boolean;
  s3Endpoint?: string;
  s3ForcePathStyle?: boolean;
}

export type CheckedExportFlags = Omit<ExportOptions, 'dbPath' | 'now' | 'onProgress'>;

export function checkExportFlags(flags: ExportFlags): CheckedExportFlags {
  const format = checkFormat(flags.format);
  checkOut(flags);
  const tables = checkTables(flags.table);
  checkDates(flags.since, flags.until);
  const exchanges = checkExchanges(flags.exchange);
  const symbols = checkSymbols(flags.symbol);
  return {
    outDir: flags.out,
    ...(format !== undefined ? { format } : {}),
    ...(tables !== undefined ? { tables } : {}),
    ...(flags.since !== undefined ? { since: flags.since } : {}),
    ...(flags.until !== undefined ? { until: flags.until } : {}),
    ...(exchanges !== undefined ? { exchanges } : {}),
    ...(symbols !== undefined ? { symbols } : {}),
    full: flags.full === true,
    ...(flags.force === true ? { force: true } : {}),
    ...(isS3Url(flags.out) ? { s3: s3OptionsOf(flags) } : {}),
  };
}

function s3OptionsOf(flags: ExportFlags): NonNullable<CheckedExportFlags['s3']> {
  return { ...(flags.s3Endpoint !== undefined ? { endpoint: flags.s3Endpoint } : {}), forcePathStyle: flags.s3ForcePathStyle === true };
}

function checkOut(flags: ExportFlags): void {
  if (!flags.out || flags.out.trim() === '') throw new UsageError('export: --out DIR (or s3://bucket/prefix) is required');
  if (isS3Url(flags.out)) parseS3Url(flags.out); // a bad bucket name is a usage error now, not after the COPYs
  else if (statSync(flags.out, { throwIfNoEntry: false })?.isDirectory() === false) {
    throw new UsageError(`export: --out ${flags.out} is a file; --out names a folder (made if missing), e.g. --out ${flags.out}-export`);
  }
  if ((flags.s3Endpoint !== undefined || flags.s3ForcePathStyle) && !isS3Url(flags.out)) {
    throw new UsageError('export: --s3-endpoint and --s3-force-path-style apply to an s3://bucket/prefix --out only');
  }
  if (flags.s3Endpoint !== undefined && !/^https?:\/\/[^/\s]+/i.test(flags.s3Endpoint)) {
    throw new UsageError(`export: --s3-endpoint must be an http(s) URL, e.g. http://localhost:9000; got "${flags.s3Endpoint}"`);
  }
}

function checkFormat(format: string | undefined): CheckedExportFlags['format'] {
  if (format === undefined) return undefined;
  const known = EXPORT_FORMATS.find((f) => f === format);
  if (known === undefined) throw new UsageError(`export: unknown format "${format}"; allowed: ${EXPORT_FORMATS.join(', ')}`);
  return known;
}

function checkTables(tables: string[] | undefined): ExportTable[] | undefined {
  for (const table of tables ?? []) {
    if (!(EXPORT_TABLES as readonly string[]).includes(table)) throw new UsageError(`export: unknown table "${table}"; allowed: ${EXPORT_TABLES.join(', ')}`);
  }
  return tables as ExportTable[] | undefined;
}

function checkDates(since: string | undefined, until: string | undefined): void {
  for (const [name, value] of [
    ['since', since],
    ['until', until],
  ] as const) {
    // A real calendar date: 2026-02-30 has the shape but would only fail later, inside DuckDB.
    const problem = value === undefined ? undefined : dateProblem(value);
    if (problem !== undefined) throw new UsageError(`export: --${name}: ${problem}`);
  }
  if (since && until && since > until) throw new UsageError(`export: --since ${since} is after --until ${until}`);
}

function checkExchanges(exchanges: string[] | undefined): string[] | undefined {
  const lower = exchanges?.map((e) => e.toLowerCase());
  for (const exchange of lower ?? []) {
    if (!isExchange(exchange)) throw new UsageError(`export: unknown exchange "${exchange}"; allowed: ${EXCHANGES.join(', ')}`);
  }
  return lower;
}

function checkSymbols(symbols: string[] | undefined): string[] | undefined {
  const upper = symbols?.map((s) => s.toUpperCase());
  for (const symbol of upper ?? []) {
    if (!SYMBOL_PATTERN.test(symbol)) throw new UsageError(`export: bad symbol "${symbol}"; allowed: ${SYMBOL_RULE}`);
  }
  return upper;
}
