// The daily file layouts as data: which header names each kind needs, how DuckDB
// must read them, and which known columns are not stored. Every name here is a fixed identifier,
// so the loader may put them in SQL text.

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
  /** Header names the loader needs, with the type read_csv must parse them as. */
  required: ReadonlyMap<string, CsvType>;
  /** Known columns that are deliberately not stored (no warning). */
  ignored: ReadonlySet<string>;
}

const CAPTURE_COLUMNS: Array<[string, CsvType]> = [
  ['schema_version', 'DOUBLE'],
  // Text, cast in SQL: read_csv turns a malformed TIMESTAMPTZ field into NULL instead of failing.
  ['timestamp_utc', 'VARCHAR'],
  ['session_date', 'DATE'],
  ['exchange', 'VARCHAR'],
  ['symbol', 'VARCHAR'],
];

const STRIKE_COLUMNS: Array<[string, CsvType]> = [['strike', 'DOUBLE'], ...STRIKE_FIELDS.map((f): [string, CsvType] => [f, 'DOUBLE'])];

export const LAYOUTS: Record<FileKind, FileLayout> = {
  levels: {
    kind: 'levels',
    required: new Map<string, CsvType>([
      ...CAPTURE_COLUMNS,
      ['type', 'VARCHAR'],
      ['oi_date', 'DATE'],
      ['expiration', 'VARCHAR'],
      ['dte', 'DOUBLE'],
      ...LEVELS_FIELDS.map((f): [string, CsvType] => [f, levelsFieldType(f)]),
    ]),
    ignored: new Set(),
  },
  strikes_total: {
    kind: 'strikes_total',
    required: new Map<string, CsvType>([...CAPTURE_COLUMNS, ...STRIKE_COLUMNS]),
    // The snapshot fields repeated on each row: already in levels.
    ignored: new Set(['type', 'oi_date', ...LEVELS_FIELDS]),
  },
  strikes_by_expiry: {
    kind: 'strikes_by_expiry',
    required: new Map<string, CsvType>([...CAPTURE_COLUMNS, ['expiration', 'DATE'], ...STRIKE_COLUMNS]),
    ignored: new Set(),
  },
};

export const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;
