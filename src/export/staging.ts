// What an export's COPYs write into its hidden staging folder: the options each format is written
// with, how many partitions one partitioned COPY takes, the one file a partition came out as, the
// partition written again alone when it did not come out as one file, and the staging folders a
// cut export left behind (named, never removed).
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { STAGING_PREFIX } from './target.js';
import type { ExportFormat, ExportTable } from './tables.js';
import type { Partition } from './copy-runs.js';

/**
 * Most partitions per partitioned COPY. DuckDB keeps one writer open per partition up to
 * partitioned_write_max_open_files (default 100); past it, a partition can be split over several
 * files. Staying below keeps one file per partition (and bounds the writers' buffers). Raising the
 * limit to put more partitions in one COPY was slower, not faster: holding many writers open is what
 * costs, not the number of statements (bench/RESULTS.md).
 */
export const PARTITIONS_PER_COPY = 64;

/**
 * Parquet for every engine: Snappy, which DuckDB, Trino/Athena, Spark, Hive, pyarrow, polars and
 * pure-JS readers all decode without a plugin (zstd files are 23% smaller on the 60-day demo, but older Hive/Athena
 * engines and light readers need extra codecs). Row groups of up to 122,880 rows: a session's
 * partition is one or two row groups, so a reader fetches a column chunk with one ranged GET, and
 * DuckDB writes min/max statistics for every column chunk, which engines use to skip row groups.
 */
export const COPY_OPTIONS: Record<ExportFormat, string> = {
  parquet: 'FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE 122880',
  csv: 'FORMAT csv, HEADER true',
};

/** Staging-like folders already in the export folder: named in a warning, never removed. */
export function leftoverStaging(outDir: string): string[] {
  return readdirSync(outDir)
    .filter((name) => name.startsWith(STAGING_PREFIX))
    .map((name) => `export: ${join(outDir, name)} looks like the staging folder of a cut export; gexwh leaves it alone: remove it when no export is running`);
}

/** The one file of a staged partition folder, or null when there is none or more than one. */
export function onlyFileIn(folder: string): string | null {
  if (!existsSync(folder)) return null;
  const names = readdirSync(folder);
  return names.length === 1 && names[0] !== undefined ? join(folder, names[0]) : null;
}

/** One partition by itself into the staging folder (the fallback of stageRun); returns the file. */
export async function writePartition(conn: DuckDBConnection, table: ExportTable, format: ExportFormat, partition: Partition, folder: string): Promise<string> {
  const temp = join(folder, `.data.${randomBytes(6).toString('hex')}.tmp`);
  await conn.run(`COPY (SELECT * FROM ${table} WHERE exchange = $1 AND symbol = $2 AND session_date = $3::DATE) TO $4 (${COPY_OPTIONS[format]})`, [
    partition.exchange,
    partition.symbol,
    partition.sessionDate,
    temp,
  ]);
  return temp;
}
