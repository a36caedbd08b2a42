// How read_csv columns (alias s) and the batch's file list (alias f) become table rows. The header
// decides which known columns the SELECT reads: an absent one is left out (NULL). Fixed text, apart
// from the table names of a file's unknown columns, always quoted.
import { LEVELS_FIELDS } from './layouts.js';
import type { CsvColumn, HeaderMapping } from './csv-header.js';
import type { FileKind } from '../core/file-kinds.js';

type Target = Array<[column: string, expression: string]>;

/** A file's unknown column as the insert writes it: its table column, its type there. */
export interface ExtraTarget {
  alias: string;
  column: string;
  type: 'DOUBLE' | 'VARCHAR';
}

/** `"name"`: a name from a file's header, safe in SQL text. */
export function quoteIdentifier(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * The file's identity columns, each checked against the manifest's when the file carries it: a row of
 * another market, session or schema_version fails the whole statement (the batch then loads file by
 * file, and the file fails named). An empty field says nothing. The manifest's session_date is the one stored.
 */
function identityCheck(present: ReadonlySet<string>): string {
  const checks: string[] = [];
  const disagree = (column: string, file: string, manifest: string) =>
    `WHEN s.${column} IS NOT NULL AND ${file} <> ${manifest}
          THEN error('rows belong to another market or session: the file says ${column} ' || CAST(s.${column} AS VARCHAR) || ' where its manifest says ' || CAST(${manifest} AS VARCHAR))`;
  if (present.has('exchange')) checks.push(disagree('exchange', 'lower(s.exchange)', 'f.exchange'));
  if (present.has('symbol')) checks.push(disagree('symbol', 'upper(s.symbol)', 'f.symbol'));
  if (present.has('session_date')) checks.push(disagree('session_date', 's.session_date', 'f.session_date'));
  if (present.has('schema_version')) {
    checks.push(
      `WHEN s.schema_version IS NOT NULL AND f.schema_version IS NOT NULL AND CAST(s.schema_version AS INTEGER) <> f.schema_version
          THEN error('the file says schema_version ' || CAST(s.schema_version AS VARCHAR) || ' where its manifest says ' || CAST(f.schema_version AS VARCHAR))`,
    );
  }
  return checks.length === 0 ? 'f.session_date' : `CASE ${checks.join('\n          ')} ELSE f.session_date END`;
}

/**
 * A capture time as TIMESTAMPTZ. ISO 8601 lets it drop its seconds (2025-03-11T00:15Z), which DuckDB's
 * cast refuses: those get :00 (only when the plain cast fails, so the common form costs no regex). An
 * offset, zero or not, is converted exactly by the cast; a time without one is UTC (the session zone).
 * Anything else still fails the file.
 */
const CAPTURE_TIME = `coalesce(TRY_CAST(s.timestamp_utc AS TIMESTAMPTZ),
         CAST(regexp_replace(s.timestamp_utc, '^(\\d{4}-\\d{2}-\\d{2}[T ]\\d{2}:\\d{2})([^:0-9]|$)', '\\1:00\\2') AS TIMESTAMPTZ))`;

function market(present: ReadonlySet<string>): Target {
  return [
    // exchange and symbol come from the validated load input; the file's own are checked equal.
    ['exchange', 'f.exchange'],
    ['symbol', 'f.symbol'],
    ['session_date', identityCheck(present)],
    // Strict: a malformed timestamp fails the file (staged as text, see layouts.ts).
    ['timestamp_utc', CAPTURE_TIME],
  ];
}

function schemaVersion(present: ReadonlySet<string>): Target {
  return [['schema_version', present.has('schema_version') ? 'coalesce(f.schema_version, CAST(s.schema_version AS INTEGER))' : 'f.schema_version']];
}

/** Table column ← file column, for the optional ones: written only when the header holds them. */
const STRIKE_VALUES: Array<[string, string]> = [
  ['call_gex', 'strike_call_gex'],
  ['put_gex', 'strike_put_gex'],
  ['net_gex', 'strike_net_gex'],
  ['call_oi', 'strike_call_oi'],
  ['put_oi', 'strike_put_oi'],
];

function optional(
  present: ReadonlySet<string>,
  pairs: ReadonlyArray<[column: string, source: string]>,
  expression = (source: string) => `s.${source}`,
): Target {
  return pairs.filter(([, source]) => present.has(source)).map(([column, source]) => [column, expression(source)]);
}

/** Integers are staged as DOUBLE (so 3.0 or 3e0 parse) and cast here. */
const levelsField = (field: string): string => (field === 'flip_count' ? `CAST(s.${field} AS INTEGER)` : `s.${field}`);

/**
 * `type` when the file has none: files hold completed sessions only, so the last capture of the file
 * is the session's close and every other one intraday.
 */
const DERIVED_TYPE = `CASE WHEN ${CAPTURE_TIME} = max(${CAPTURE_TIME}) OVER (PARTITION BY s.filename)
       THEN 'close' ELSE 'intraday' END`;

function levelsTarget(present: ReadonlySet<string>): Target {
  return [
    ...market(present),
    ['type', present.has('type') ? 's.type' : DERIVED_TYPE],
    ...optional(present, [['oi_date', 'oi_date']]),
    ['expiration', 's.expiration'],
    // A bad expiration text fails the load (CAST, not TRY_CAST): it must not become a silent NULL.
    ['expiration_date', "CASE WHEN s.expiration = 'TOTAL' THEN NULL ELSE CAST(s.expiration AS DATE) END"],
    ...optional(present, [['dte', 'dte']]),
    ...optional(
      present,
      LEVELS_FIELDS.map((field): [string, string] => [field, field]),
      levelsField,
    ),
    ...schemaVersion(present),
    ['source', "'file'"],
  ];
}

function targetOf(kind: FileKind, present: ReadonlySet<string>): Target {
  if (kind === 'levels') return levelsTarget(present);
  const expiration: Target = kind === 'strikes_by_expiry' ? [['expiration_date', 's.expiration']] : [];
  return [...market(present), ...expiration, ['strike', 's.strike'], ...optional(present, STRIKE_VALUES), ...schemaVersion(present)];
}

function extraTarget(extra: ExtraTarget): [string, string] {
  const source = `s.${extra.alias}`;
  return [quoteIdentifier(extra.column), extra.type === 'DOUBLE' ? `CAST(${source} AS DOUBLE)` : source];
}

/** `(col, ...) SELECT expr, ...` for INSERT INTO <kind>; the caller adds FROM. */
export function targetSelect(kind: FileKind, mapping: Pick<HeaderMapping, 'present'>, extras: readonly ExtraTarget[] = []): string {
  const target = [...targetOf(kind, mapping.present), ...extras.map(extraTarget)];
  const columns = target.map(([column]) => column).join(', ');
  const expressions = target.map(([, expression]) => expression).join(', ');
  return `(${columns}) SELECT ${expressions}`;
}

/**
 * One read_csv over every file of a batch ($1.. are the paths): explicit positional columns
 * (auto-detection guesses wrong and is slow), never ignore_errors (a broken file must fail, not load
 * partly). Aliases and types come from the fixed layouts (csv-header.ts), never from file text.
 */
export function readCsvOf(paths: readonly string[], columns: readonly CsvColumn[]): string {
  const placeholders = paths.map((_, i) => `$${i + 1}`).join(', ');
  const columnSpec = columns.map((c) => `'${c.alias}': '${c.type}'`).join(', ');
  return `read_csv([${placeholders}], header = true, auto_detect = false, delim = ',', quote = '"',
                   escape = '"', columns = {${columnSpec}}, compression = 'gzip', filename = true)`;
}
