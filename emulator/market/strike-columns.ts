// Strike rows stored by column: the daily files and the levels read every strike of every capture
// (138k per crypto session), and one typed array per field costs no object per strike to allocate
// and collect. StrikeRow objects are made only when a capture is served as JSON.

import type { StrikeRow } from './types.js';

export interface StrikeColumns {
  /** Ascending. */
  strike: Float64Array;
  callGex: Float64Array;
  putGex: Float64Array;
  netGex: Float64Array;
  callOi: Float64Array;
  putOi: Float64Array;
}

export function strikeRows(columns: StrikeColumns): StrikeRow[] {
  const rows: StrikeRow[] = [];
  for (let i = 0; i < columns.strike.length; i++) {
    rows.push({
      strike: columns.strike[i] as number,
      call_gex: columns.callGex[i] as number,
      put_gex: columns.putGex[i] as number,
      net_gex: columns.netGex[i] as number,
      call_oi: columns.callOi[i] as number,
      put_oi: columns.putOi[i] as number,
    });
  }
  return rows;
}
