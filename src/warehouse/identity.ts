// What a `--db` file is, judged before anything is written to it: a DuckDB file starts with a
// checksum and the magic `DUCK` (or, that header overwritten, still has DuckDB's database headers
// after it); a warehouse of gexwh holds sync.migrations. Only a damaged file of
// DuckDB's own format is offered `gexwh rebuild`; a text file or another program's database is the
// wrong path, and rebuild replaces it only when told to (--force), keeping it aside.
import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import { resolve } from 'node:path';
import { duckdb } from './duckdb.js';
import { duckdbLimitsFromEnv } from './duckdb-limits.js';
import { num, readOne } from './read-rows.js';
import { errorMessage } from '../core/errors.js';

/** DuckDB's words for a file that is not a database or whose blocks fail their checksums. */
export function isDamagedFileMessage(message: string): boolean {
  return /not a valid DuckDB database file|Corrupt database file/i.test(message);
}

const MAGIC = Buffer.from('DUCK');
const MAGIC_OFFSET = 8;
/** The two database headers that follow DuckDB's 4 KiB main header, each 4 KiB. */
const DATABASE_HEADERS = [4096, 8192];

/**
 * True when the file is DuckDB's storage format: the magic `DUCK` of its main header, or, when that
 * header is overwritten, a database header whose block size and vector size are DuckDB's (binary
 * fields no text file or other format holds at those offsets by chance).
 */
export function hasDuckDbHeader(path: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const head = Buffer.alloc(8192 + 64);
    const read = readSync(fd, head, 0, head.length, 0);
    if (read >= MAGIC_OFFSET + MAGIC.length && head.subarray(MAGIC_OFFSET, MAGIC_OFFSET + MAGIC.length).equals(MAGIC)) return true;
    return DATABASE_HEADERS.some((offset) => read >= offset + 56 && isDatabaseHeader(head.subarray(offset, offset + 56)));
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** checksum, iteration, meta block, free list, block count, block size, vector size (u64 little-endian). */
function isDatabaseHeader(header: Buffer): boolean {
  const blockSize = header.readBigUInt64LE(40);
  const vectorSize = header.readBigUInt64LE(48);
  return isPowerOfTwoBetween(blockSize, 1n << 12n, 1n << 24n) && isPowerOfTwoBetween(vectorSize, 1n << 9n, 1n << 16n);
}

function isPowerOfTwoBetween(value: bigint, low: bigint, high: bigint): boolean {
  return value >= low && value <= high && (value & (value - 1n)) === 0n;
}

export type DbFileKind =
  | 'missing'
  | 'not_duckdb' // no DuckDB header: a text file, a folder, anything else
  | 'gexwh' // a warehouse of this tool (sync.migrations)
  | 'empty' // a DuckDB database with no table: nothing to lose
  | 'foreign' // a DuckDB database of something else
  | 'damaged' // DuckDB's header, but DuckDB cannot read it: a damaged warehouse
  | 'held'; // another process holds it read-write: cannot be told (the open says so)

/** What the file at `path` is; opens it READ_ONLY through an in-memory attach, never writes. */
export async function identifyDbFile(path: string): Promise<DbFileKind> {
  const file = resolve(path);
  if (!existsSync(file)) return 'missing';
  if (!hasDuckDbHeader(file)) return 'not_duckdb';
  const instance = await duckdb.DuckDBInstance.create(':memory:', duckdbLimitsFromEnv());
  const connection = await instance.connect();
  try {
    await connection.run(`ATTACH ${duckdb.quotedString(file)} AS probe (READ_ONLY)`);
    const row = await readOne(
      connection,
      `SELECT count(*)::INTEGER AS n, count(*) FILTER (schema_name = 'sync' AND table_name = 'migrations')::INTEGER AS ours
         FROM duckdb_tables() WHERE database_name = 'probe'`,
      [],
      { n: num, ours: num },
    );
    await connection.run('DETACH probe');
    return row.ours > 0 ? 'gexwh' : row.n === 0 ? 'empty' : 'foreign';
  } catch (error) {
    const message = errorMessage(error);
    if (isDamagedFileMessage(message)) return 'damaged';
    if (/Could not set lock on file/i.test(message)) return 'held';
    throw error;
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}
