// How read_csv columns (alias s) and the batch's file list (alias f) become table rows. Fixed
// text only: every identifier here comes from the layouts, never from a file.
import { LEVELS_FIELDS } from './layouts.js';
import type { FileKind } from '../core/file-kinds.js';

type Target = Array<[column: string, expression: string]>;

const MARKET: Target = [
  // exchange and symbol come from the validated load input; the file's own were checked equal.
  ['exchange', 'f.exchange'],
  ['symbol', 'f.symbol'],
  // A row of another market or session fails the whole statement (the batch then loads file by file).
  [
    'session_date',
    `CASE WHEN lower(s.exchange) IS DISTINCT FROM f.exchange OR upper(s.symbol) IS DISTINCT FROM f.symbol
               OR s.session_date IS DISTINCT FROM f.session_date
          THEN error('rows belong to another market or session (' || concat_ws(', ', s.exchange, s.symbol, s.session_date) || ')')
          ELSE s.session_date END`,
  ],
  // Strict CAST: a malformed timestamp fails the file (staged as text, see layouts.ts).
  ['timestamp_utc', 'CAST(s.timestamp_utc AS TIMESTAMPTZ)'],
];

const STRIKE_VALUES: Target = [
  ['strike', 's.strike'],
  ['call_gex', 's.strike_call_gex'],
  ['put_gex', 's.strike_put_gex'],
  ['net_gex', 's.strike_net_gex'],
  ['call_oi', 's.strike_call_oi'],
  ['put_oi', 's.strike_put_oi'],
];

const SCHEMA_VERSION: Target = [['schema_version', 'CAST(s.schema_version AS INTEGER)']];

function levelsField(field: string): [string, string] {
  // Integers are staged as DOUBLE (so 3.0 or 3e0 parse) and cast here.
  return [field, field === 'flip_count' ? `CAST(s.${field} AS INTEGER)` : `s.${field}`];
}

const TARGETS: Record<FileKind, Target> = {
  levels: [
    ...MARKET,
    ['type', 's.type'],
    ['oi_date', 's.oi_date'],
    ['expiration', 's.expiration'],
    // A bad expiration text fails the load (CAST, not TRY_CAST): it must not become a silent NULL.
    ['expiration_date', "CASE WHEN s.expiration = 'TOTAL' THEN NULL ELSE CAST(s.expiration AS DATE) END"],
    ['dte', 's.dte'],
    ...LEVELS_FIELDS.map(levelsField),
    ...SCHEMA_VERSION,
    ['source', "'file'"],
  ],
  strikes_total: [...MARKET, ...STRIKE_VALUES, ...SCHEMA_VERSION],
  strikes_by_expiry: [...MARKET, ['expiration_date', 's.expiration'], ...STRIKE_VALUES, ...SCHEMA_VERSION],
};

/** `(col, ...) SELECT expr, ...` for INSERT INTO <kind>; the caller adds FROM. */
export function targetSelect(kind: FileKind): string {
  const target = TARGETS[kind];
  const columns = target.map(([column]) => column).join(', ');
  const expressions = target.map(([, expression]) => expression).join(', ');
  return `(${columns}) SELECT ${expressions}`;
}
