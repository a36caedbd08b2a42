// The SELECT that turns daily-file columns into table rows, for the two peers (ideal and naive).
// They read the file's own exchange/symbol columns; gexwh takes them from the validated manifest.
// Fixed text from the layouts only.
import { LEVELS_FIELDS } from '../src/warehouse/layouts.js';
import type { FileKind } from '../src/core/file-kinds.js';

const TIMESTAMP = 'CAST(timestamp_utc AS TIMESTAMPTZ)';
const STRIKES = 'strike, strike_call_gex, strike_put_gex, strike_net_gex, strike_call_oi, strike_put_oi';
const STRIKE_COLUMNS = 'strike, call_gex, put_gex, net_gex, call_oi, put_oi';

const LEVELS_VALUES = LEVELS_FIELDS.map((f) => (f === 'flip_count' ? 'CAST(flip_count AS INTEGER)' : f)).join(', ');

/** `INSERT INTO <kind> (...) SELECT ... FROM` — append the read_csv call. */
export function insertFrom(kind: FileKind): string {
  switch (kind) {
    case 'levels':
      return `INSERT INTO levels (exchange, symbol, session_date, timestamp_utc, type, oi_date, expiration, expiration_date, dte,
                ${LEVELS_FIELDS.join(', ')}, schema_version, source)
              SELECT exchange, symbol, session_date, ${TIMESTAMP}, type, oi_date, expiration,
                CASE WHEN expiration = 'TOTAL' THEN NULL ELSE CAST(expiration AS DATE) END, dte,
                ${LEVELS_VALUES}, CAST(schema_version AS INTEGER), 'file' FROM`;
    case 'strikes_total':
      return `INSERT INTO strikes_total (exchange, symbol, session_date, timestamp_utc, ${STRIKE_COLUMNS}, schema_version)
              SELECT exchange, symbol, session_date, ${TIMESTAMP}, ${STRIKES}, CAST(schema_version AS INTEGER) FROM`;
    case 'strikes_by_expiry':
      return `INSERT INTO strikes_by_expiry (exchange, symbol, session_date, timestamp_utc, expiration_date, ${STRIKE_COLUMNS}, schema_version)
              SELECT exchange, symbol, session_date, ${TIMESTAMP}, CAST(expiration AS DATE), ${STRIKES}, CAST(schema_version AS INTEGER) FROM`;
  }
}
