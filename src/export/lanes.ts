// The connections an export's tables are planned and written on ("lanes"), and the one turn its
// ledger writes take on the first connection.
import type { DuckDBConnection } from '@duckdb/node-api';
import pLimit from 'p-limit';
import type { ExportTable } from './tables.js';

/** The connection each table is planned and written on: its own when `connect` is given, else `conn` for all. */
export interface Lanes {
  tables: readonly ExportTable[];
  connections: DuckDBConnection[];
  concurrent: boolean;
}

export async function tableLanes(
  conn: DuckDBConnection,
  tables: readonly ExportTable[],
  connect: (() => Promise<DuckDBConnection>) | undefined,
): Promise<Lanes> {
  if (connect === undefined) return { tables, connections: tables.map(() => conn), concurrent: false };
  const connections = [];
  for (const _table of tables) connections.push(await connect());
  return { tables, connections, concurrent: true };
}

/**
 * `work` for every table on its lane: all at once when each has its own connection, else one after
 * another. Every table's work ends before this returns or throws (none runs into the staging
 * cleanup); the first failure is thrown.
 */
export async function eachLane<T>(lanes: Lanes, work: (lane: DuckDBConnection, table: ExportTable, index: number) => Promise<T>): Promise<T[]> {
  if (!lanes.concurrent) {
    const results: T[] = [];
    for (const [i, table] of lanes.tables.entries()) results.push(await work(lanes.connections[i]!, table, i));
    return results;
  }
  const settled = await Promise.allSettled(lanes.tables.map((table, i) => work(lanes.connections[i]!, table, i)));
  const failure = settled.find((result) => result.status === 'rejected');
  if (failure) throw failure.reason;
  return settled.map((result) => (result as PromiseFulfilledResult<T>).value);
}

/** Writes to the export ledger, on its connection, one at a time whichever table asks: a connection runs one statement at a time. */
export type Ledger = <T>(write: (conn: DuckDBConnection) => Promise<T>) => Promise<T>;

export function oneAtATime(conn: DuckDBConnection): Ledger {
  const turn = pLimit(1);
  return (write) => turn(() => write(conn));
}
