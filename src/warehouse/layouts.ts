// The daily file layouts as data: which header names each kind knows and how DuckDB must read them,
// which few a row cannot exist without, and which known columns are not stored. Every name here is a
// fixed identifier, so the loader may put them in SQL text.

import type { FileKind } from '../core/file-kinds.js';

/** Types DuckDB parses the CSV fields as (read_csv `columns`). */
export type CsvType = 'DOUBLE' | 'VARCHAR' | 'DATE';

/** The levels fields of the spec, in its order. */
export const LEVELS_FIELDS = [
  'spot',
  'flip',
  'flip_count',
  'regime',
  'net_gex',
  'abs_gex',
  'call_gex',
  'put_gex',
  'call_oi_total',
  'put_oi_total',
  'p1_strike',
  'p1_gex',
  'p2_strike',
  'p2_gex',
  'n1_strike',
  'n1_gex',
  'n2_strike',
  'n2_gex',
  'a1_strike',
  'a1_gex',
  'a2_strike',
  'a2_gex',
  's_price',
  's_gex',
  'v_price',
  'v_gex',
  'max_pain',
  'atm_iv',
] as const;

const STRIKE_FIELDS = ['strike_call_gex', 'strike_put_gex', 'strike_net_gex', 'strike_call_oi', 'strike_put_oi'] as const;

/** Integers (schema_version, flip_count) are read as DOUBLE so `3.0` or `3e0` parse; cast later. */
function levelsFieldType(field: string): CsvType {
  return field === 'regime' ? 'VARCHAR' : 'DOUBLE';
}

export interface FileLayout {
  kind: FileKind;
  /** Every header name the loader knows for the kind, with the type read_csv must parse it as. */
  known: ReadonlyMap<string, CsvType>;
  /** What a row cannot exist without: the grain, and in the strikes files the two GEX columns. */
  required: readonly string[];
  /** Known columns that are deliberately not stored (no warning). */
  ignored: ReadonlySet<string>;
}

/**
 * The file's identity columns. The manifest and the link say which file it is; when a file carries
 * one of these too, each row must agree with them.
 */
export const IDENTITY_COLUMNS = ['exchange', 'symbol', 'session_date', 'schema_version'] as const;

const CAPTURE_COLUMNS: Array<[string, CsvType]> = [
  ['schema_version', 'DOUBLE'],
  // Text, cast in SQL: read_csv turns a malformed TIMESTAMPTZ field into NULL instead of failing.
  ['timestamp_utc', 'VARCHAR'],
  ['session_date', 'DATE'],
  ['exchange', 'VARCHAR'],
  ['symbol', 'VARCHAR'],
];

const STRIKE_COLUMNS: Array<[string, CsvType]> = [['strike', 'DOUBLE'], ...STRIKE_FIELDS.map((f): [string, CsvType] => [f, 'DOUBLE'])];

const STRIKE_GEX = ['strike_call_gex', 'strike_put_gex'];

export const LAYOUTS: Record<FileKind, FileLayout> = {
  levels: {
    kind: 'levels',
    known: new Map<string, CsvType>([
      ...CAPTURE_COLUMNS,
      ['type', 'VARCHAR'],
      ['oi_date', 'DATE'],
      ['expiration', 'VARCHAR'],
      ['dte', 'DOUBLE'],
      ...LEVELS_FIELDS.map((f): [string, CsvType] => [f, levelsFieldType(f)]),
    ]),
    required: ['timestamp_utc', 'expiration'],
    ignored: new Set(),
  },
  strikes_total: {
    kind: 'strikes_total',
    known: new Map<string, CsvType>([...CAPTURE_COLUMNS, ...STRIKE_COLUMNS]),
    required: ['timestamp_utc', 'strike', ...STRIKE_GEX],
    // The snapshot fields repeated on each row: already in levels.
    ignored: new Set(['type', 'oi_date', ...LEVELS_FIELDS]),
  },
  strikes_by_expiry: {
    kind: 'strikes_by_expiry',
    known: new Map<string, CsvType>([...CAPTURE_COLUMNS, ['expiration', 'DATE'], ...STRIKE_COLUMNS]),
    required: ['timestamp_utc', 'expiration', 'strike', ...STRIKE_GEX],
    ignored: new Set(),
  },
};

/**
 * The columns of each table the loader fills itself (from the manifest or derived): a file's
 * unknown column of the same name is stored under `file_<name>` so it never overwrites them.
 */
export const TABLE_COLUMNS: Record<FileKind, ReadonlySet<string>> = {
  levels: new Set([
    'exchange',
    'symbol',
    'session_date',
    'timestamp_utc',
    'type',
    'oi_date',
    'expiration',
    'expiration_date',
    'dte',
    ...LEVELS_FIELDS,
    'schema_version',
    'source',
  ]),
  strikes_total: new Set([
    'exchange',
    'symbol',
    'session_date',
    'timestamp_utc',
    'strike',
    'call_gex',
    'put_gex',
    'net_gex',
    'call_oi',
    'put_oi',
    'schema_version',
  ]),
  strikes_by_expiry: new Set([
    'exchange',
    'symbol',
    'session_date',
    'timestamp_utc',
    'expiration_date',
    'strike',
    'call_gex',
    'put_gex',
    'net_gex',
    'call_oi',
    'put_oi',
    'schema_version',
  ]),
};

/** The schema_version this loader's column names were written for. */
export const DESIGN_SCHEMA_VERSION = 1;

export const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;
