// Daily file layouts and their deterministic gzip bytes.

import { createHash } from 'node:crypto';
import { constants, gzipSync } from 'node:zlib';
import { formatCsvNumber } from './numbers.js';
import { LEVELS_FIELD_NAMES, type DailyFile, type LevelsFields } from './types.js';

export const SCHEMA_VERSION = 1;
const STRIKE_COLUMNS = ['strike', 'strike_call_gex', 'strike_put_gex', 'strike_net_gex', 'strike_call_oi', 'strike_put_oi'];

export const FILE_HEADERS = {
  levels: ['schema_version', 'timestamp_utc', 'session_date', 'type', 'exchange', 'symbol', 'oi_date', 'expiration', 'dte', ...LEVELS_FIELD_NAMES],
  strikes_total: ['schema_version', 'timestamp_utc', 'session_date', 'type', 'exchange', 'symbol', 'oi_date', ...LEVELS_FIELD_NAMES, ...STRIKE_COLUMNS],
  strikes_by_expiry: ['schema_version', 'timestamp_utc', 'session_date', 'exchange', 'symbol', 'expiration', ...STRIKE_COLUMNS],
} as const satisfies Record<string, readonly string[]>;

/** 2026-11-20T14:15:00Z: ISO 8601 UTC without milliseconds. */
export function formatTimestamp(instant: Date | number): string {
  return `${new Date(instant).toISOString().slice(0, 19)}Z`;
}

/**
 * A text field. Our values (dates, venue and symbol names, enum words) never hold a comma, quote or
 * newline; quote defensively anyway.
 */
function textField(value: string | null): string {
  if (value === null) return '';
  return /[",\n\r]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

export function levelsCsvFields(levels: LevelsFields): string {
  return LEVELS_FIELD_NAMES.map((name) => {
    const value = levels[name];
    return typeof value === 'number' || value === null ? formatCsvNumber(value) : textField(value);
  }).join(',');
}

/** The working buffer of every CsvWriter in this thread (a build runs start to end synchronously). */
let scratch = Buffer.allocUnsafe(1 << 24);

/**
 * Accumulates CSV text as bytes, written row by row into a reused Buffer: no file-long string is
 * built, flattened and encoded again, and no fresh memory is touched per file.
 */
export class CsvWriter {
  private length = 0;
  rows = 0;

  constructor(header: readonly string[]) {
    this.write(`${header.join(',')}\n`);
  }

  addLines(lines: readonly string[]): void {
    for (const line of lines) this.line(line);
  }

  /** One row, without its newline. */
  line(text: string): void {
    this.write(`${text}\n`);
    this.rows++;
  }

  /**
   * For the long files' rows: the working buffer with room for `bytes` more from `end`. The caller
   * writes there and calls commit(): no string is made per row or per number.
   */
  room(bytes: number): Buffer {
    this.reserve(bytes);
    return scratch;
  }

  get end(): number {
    return this.length;
  }

  /** Takes what was written into room() up to `end`, holding `rows` rows. */
  commit(end: number, rows: number): void {
    this.length = end;
    this.rows += rows;
  }

  private write(text: string): void {
    // A UTF-16 unit takes at most 3 UTF-8 bytes: grow for the worst case, write the actual bytes.
    this.reserve(text.length * 3);
    this.length += scratch.write(text, this.length, 'utf8');
  }

  private reserve(bytes: number): void {
    const worst = this.length + bytes;
    if (worst > scratch.length) {
      const grown = Buffer.allocUnsafe(Math.max(worst, scratch.length * 2));
      scratch.copy(grown, 0, 0, this.length);
      scratch = grown;
    }
  }

  /**
   * The CSV bytes: a view of the shared working buffer, valid until the next CsvWriter of this
   * thread writes (gzip it at once).
   */
  view(): Buffer {
    return scratch.subarray(0, this.length);
  }
}

export const rowPrefix = (fields: readonly (string | number | null)[]): string =>
  fields.map((field) => (typeof field === 'number' || field === null ? formatCsvNumber(field) : textField(field))).join(',');

/** Offset of the OS byte in the gzip member header (RFC 1952). */
const GZIP_OS_OFFSET = 9;
const GZIP_OS_UNIX = 3;

/**
 * Gzip with fixed header bytes: zlib writes mtime 0 and no name; the OS byte is pinned (zlib sets it
 * from the build platform). A revision r > 0 changes the OS byte (readers ignore it) and, every 256
 * revisions, the compression level: new bytes and sha256, the same decompressed CSV. Level 1 takes
 * well under half of level 6's time on a strikes_by_expiry text, for a few percent more bytes.
 */
export function gzipDeterministic(csv: string | Buffer, revision: number): Buffer {
  const level = Math.floor(revision / 256) % 2 === 0 ? 1 : 2;
  const input = typeof csv === 'string' ? Buffer.from(csv, 'utf8') : csv;
  // Our CSV compresses over 4x at level 1: output chunks of half the input hold it in one, where the
  // default 16 KB chunks are copied together at the end (~200 of them for a strikes_by_expiry file).
  // The deflate stream does not depend on the chunk size; the copy trims the chunk to the bytes.
  const gz = Buffer.from(gzipSync(input, { level, chunkSize: Math.max(constants.Z_DEFAULT_CHUNK, Math.ceil(input.length / 2)) }));
  gz[GZIP_OS_OFFSET] = (GZIP_OS_UNIX + revision) % 256;
  return gz;
}

export function dailyFileOf(csv: string | Buffer, rows: number, revision: number): DailyFile {
  const bytes = gzipDeterministic(csv, revision);
  return { bytes, rows, sha256: createHash('sha256').update(bytes).digest('hex') };
}
