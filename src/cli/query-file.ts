// `gexwh query --out FILE`: the result written whole or not at all. A temp file beside FILE takes
// the rows as they come (CSV, JSON, JSON lines) or DuckDB's Parquet writer, then is synced and
// renamed over FILE; a failure or a cancel removes it. An existing FILE is kept unless --force.
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { UsageError } from '../core/errors.js';
import { copyQueryToParquet, withQuery, type QueryOptions } from '../warehouse/query.js';
import { writeRows, type StreamFormat, type TextSink } from './query-output.js';

const FILE_FORMATS = { '.csv': 'csv', '.json': 'json', '.jsonl': 'jsonl', '.parquet': 'parquet' } as const;
type FileFormat = (typeof FILE_FORMATS)[keyof typeof FILE_FORMATS];

export interface QueryFileRequest {
  out: string;
  force: boolean;
  /** --format, if given: must agree with the file's extension. */
  format: string | undefined;
  options: QueryOptions;
}

export interface QueryFileWritten {
  out: string;
  format: FileFormat;
  rows: number;
  columns: number;
}

export async function writeQueryFile(dbPath: string, sql: string, request: QueryFileRequest): Promise<QueryFileWritten> {
  const target = resolve(request.out);
  const format = formatOfFile(request.out, request.format);
  refuseExisting(request.out, target, request.force);
  // The first folder this run creates on the way to FILE (undefined when they all exist): a failed
  // query removes it again, so bad input leaves nothing behind.
  const madeFolder = mkdirSync(dirname(target), { recursive: true });
  const temp = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const written =
      format === 'parquet' ? await parquetToFile(dbPath, sql, temp, request.options) : await streamToFile(dbPath, sql, temp, format, request.options);
    // Checked again: another process may have made the file while the query ran.
    refuseExisting(request.out, target, request.force);
    renameSync(temp, target);
    return { out: target, format, rows: written.rows, columns: written.columns.length };
  } catch (error) {
    if (madeFolder !== undefined) rmSync(madeFolder, { recursive: true, force: true });
    throw error;
  } finally {
    rmSync(temp, { force: true });
  }
}

function formatOfFile(out: string, format: string | undefined): FileFormat {
  const extension = extname(out).toLowerCase();
  const byName = (FILE_FORMATS as Record<string, FileFormat>)[extension];
  if (byName === undefined) throw new UsageError(`--out ${out}: name the file .csv, .json, .jsonl or .parquet (the extension chooses the format)`);
  if (format !== undefined && format !== byName)
    throw new UsageError(`--out ${out} is ${byName} by its name, but --format says ${format}; drop --format or rename the file`);
  return byName;
}

function refuseExisting(out: string, target: string, force: boolean): void {
  // lstat: a link, even one that leads nowhere, is something of the user's at that name.
  const entry = lstatSync(target, { throwIfNoEntry: false });
  if (entry === undefined) return;
  if (existsSync(target) && statSync(target).isDirectory()) throw new UsageError(`--out ${out} is a folder; name a file`);
  if (!force) throw new UsageError(`--out ${out} exists${entry.isSymbolicLink() ? ' (a symbolic link)' : ''}; pass --force to replace it`);
}

async function parquetToFile(dbPath: string, sql: string, temp: string, options: QueryOptions): Promise<{ rows: number; columns: unknown[] }> {
  const written = await copyQueryToParquet(dbPath, sql, temp, options);
  const handle = await open(temp, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
  return written;
}

async function streamToFile(
  dbPath: string,
  sql: string,
  temp: string,
  format: StreamFormat,
  options: QueryOptions,
): Promise<{ rows: number; columns: unknown[] }> {
  const handle = await open(temp, 'wx');
  try {
    const sink: TextSink = {
      async write(text) {
        await handle.write(text);
        return true;
      },
    };
    // A file is not a terminal: CSV keeps its bytes.
    const written = await withQuery(dbPath, sql, options, async (rows) => ({ rows: await writeRows(rows, format, sink, false), columns: rows.columns }));
    await handle.sync();
    return written;
  } finally {
    await handle.close();
  }
}
