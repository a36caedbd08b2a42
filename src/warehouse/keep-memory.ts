// A long run of statements (an export's partitioned COPYs) allocates and frees its buffers again and
// again; by default DuckDB hands that memory back to the OS after each statement, and the next one
// faults it in fresh, page by page: kernel time that grows with the rows written (at 24 months a
// third of the export's wall time went to system time, twice the raw COPY's).
import type { DuckDBConnection } from '@duckdb/node-api';
import { bool, readOne, text } from './read-rows.js';
import { quoteString } from '../core/sql-quote.js';

/**
 * Lets DuckDB's block allocator keep the memory it has used, up to the memory limit, until the
 * instance closes: later statements reuse pages already faulted in. The limit itself is unchanged;
 * nothing is reserved up front (the allocator keeps only what it has touched).
 */
export async function keepBlockMemory(conn: DuckDBConnection): Promise<void> {
  // A sandbox's settings are locked: its opener kept the memory before the lock (SandboxOptions.prepare).
  if (await configurationLocked(conn)) return;
  const { limit } = await readOne(conn, `SELECT current_setting('memory_limit') AS "limit"`, [], { limit: text });
  await conn.run(`SET block_allocator_memory = ${quoteString(limit)}`);
}

/** A sandbox's configuration is locked once opened: its settings were made before (SandboxOptions.prepare). */
export async function configurationLocked(conn: DuckDBConnection): Promise<boolean> {
  const { locked } = await readOne(conn, `SELECT current_setting('lock_configuration')::BOOLEAN AS locked`, [], { locked: bool });
  return locked;
}
