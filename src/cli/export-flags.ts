// `gexwh export`'s flags checked where they are parsed: a bad value is a UsageError (exit 2) naming
// it and what is allowed, before the warehouse is opened or any file is touched.
import { UsageError } from '../errors.js';
import { isIsoDate } from '../time/dates.js';
import { SYMBOL_PATTERN, SYMBOL_RULE } from '../names.js';
import { EXCHANGES, EXPORT_FORMATS, FILE_KINDS, isExchange, isFileKind, type ExportOptions, type FileKind } from '../warehouse/index.js';

export interface ExportFlags {
  out: string;
  format?: string;
  table?: string[];
  since?: string;
  until?: string;
  exchange?: string[];
  symbol?: string[];
  full?: boolean;
}

export type CheckedExportFlags = Omit<ExportOptions, 'dbPath' | 'now'>;

export function checkExportFlags(flags: ExportFlags): CheckedExportFlags {
  const format = checkFormat(flags.format);
  if (!flags.out || flags.out.trim() === '') throw new UsageError('export: --out DIR is required');
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
  };
}

function checkFormat(format: string | undefined): CheckedExportFlags['format'] {
  if (format === undefined) return undefined;
  const known = EXPORT_FORMATS.find((f) => f === format);
  if (known === undefined) throw new UsageError(`export: unknown format "${format}"; allowed: ${EXPORT_FORMATS.join(', ')}`);
  return known;
}

function checkTables(tables: string[] | undefined): FileKind[] | undefined {
  for (const table of tables ?? []) {
    if (!isFileKind(table)) throw new UsageError(`export: unknown table "${table}"; allowed: ${FILE_KINDS.join(', ')}`);
  }
  return tables as FileKind[] | undefined;
}

function checkDates(since: string | undefined, until: string | undefined): void {
  for (const [name, value] of [['since', since], ['until', until]] as const) {
    // A real calendar date: 2026-02-30 has the shape but would only fail later, inside DuckDB.
    if (value !== undefined && !isIsoDate(value)) throw new UsageError(`export: --${name} must be a date YYYY-MM-DD, got "${value}"`);
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
