// The raw archive's layout: `<root>/<exchange>/<symbol>/<session_date>_<file>.csv.gz`. Paths are
// built only from validated parts, so nothing a server sends can point outside the archive. A file
// being written is a hidden temp beside its final name, `.<name>.<12 hex>.part`, until it is renamed.
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { isIsoDate } from '../../time/dates.js';
import { UnsafeResponseError } from '../errors.js';
import { FILE_KINDS, type FileKind } from '../file-kinds.js';
import { SYMBOL_PATTERN, SYMBOL_RULE } from '../names.js';
import { EXCHANGES, type Exchange } from '../pairs.js';

const ARCHIVE_SUFFIX = '.csv.gz';
const SHA256 = /^[0-9a-f]{64}$/;
/** The name of a sync's temp file (the `.part` of an interrupted write looks the same). */
export const TEMP_NAME = /^\..+\.[0-9a-f]{12}\.part$/;

export interface ArchivedFileKey {
  exchange: Exchange;
  symbol: string;
  sessionDate: string;
  file: FileKind;
}

function describe(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}

function checkParts(exchange: string, symbol: string, sessionDate: string, file: string): void {
  if (!(EXCHANGES as readonly string[]).includes(exchange)) {
    throw new UnsafeResponseError(`archive: refusing exchange ${describe(exchange)}; allowed: ${EXCHANGES.join(', ')}`);
  }
  if (!SYMBOL_PATTERN.test(symbol)) {
    throw new UnsafeResponseError(`archive: refusing symbol ${describe(symbol)}; allowed: ${SYMBOL_RULE}`);
  }
  if (!isIsoDate(sessionDate)) {
    throw new UnsafeResponseError(`archive: refusing session date ${describe(sessionDate)}; expected YYYY-MM-DD`);
  }
  if (!(FILE_KINDS as readonly string[]).includes(file)) {
    throw new UnsafeResponseError(`archive: refusing file kind ${describe(file)}; allowed: ${FILE_KINDS.join(', ')}`);
  }
}

/** `<root>/<exchange>/<symbol>/<date>_<file>.csv.gz`; UnsafeResponseError for any part that could escape. */
export function archivePath(root: string, exchange: string, symbol: string, sessionDate: string, file: string): string {
  checkParts(exchange, symbol, sessionDate, file);
  const path = join(root, exchange, symbol, `${sessionDate}_${file}${ARCHIVE_SUFFIX}`);
  // Belt and braces: the validated parts cannot escape, and this proves it for the resolved path.
  const inside = relative(resolve(root), resolve(path));
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) {
    throw new UnsafeResponseError(`archive: path ${describe(path)} resolves outside the archive`);
  }
  return path;
}

/**
 * Where a newer version of an archived file waits until its rows are loaded: beside the loaded
 * version, `<date>_<file>.<first 12 hex of its sha256>.csv.gz`, never over it. Rebuild and verify
 * read only the plain name, so until the new version is loaded they see the old one, whole.
 */
export function pendingVersionPath(root: string, exchange: string, symbol: string, sessionDate: string, file: string, sha256: string): string {
  if (!SHA256.test(sha256)) throw new UnsafeResponseError(`archive: refusing sha256 ${describe(sha256)}; expected 64 hex digits`);
  const plain = archivePath(root, exchange, symbol, sessionDate, file);
  return join(dirname(plain), `${sessionDate}_${file}.${sha256.slice(0, 12)}${ARCHIVE_SUFFIX}`);
}

/** `<exchange>/<symbol>/<date>_<file>.csv.gz`: the path the tool records, relative to the archive root. */
export function relativeArchivePath(key: { exchange: string; symbol: string; sessionDate: string; file: string }): string {
  checkParts(key.exchange, key.symbol, key.sessionDate, key.file);
  return `${key.exchange}/${key.symbol}/${key.sessionDate}_${key.file}${ARCHIVE_SUFFIX}`;
}

/** The pending name of a newer version (see pendingVersionPath), relative to the archive root. */
export function relativePendingPath(key: { exchange: string; symbol: string; sessionDate: string; file: string }, sha256: string): string {
  if (!SHA256.test(sha256)) throw new UnsafeResponseError(`archive: refusing sha256 ${describe(sha256)}; expected 64 hex digits`);
  checkParts(key.exchange, key.symbol, key.sessionDate, key.file);
  return `${key.exchange}/${key.symbol}/${key.sessionDate}_${key.file}.${sha256.slice(0, 12)}${ARCHIVE_SUFFIX}`;
}

/** Folders of the archive root that hold the tool's own state, not daily files. */
export const RESERVED_FOLDERS = ['_journal', '_live', '_quarantine'] as const;

/** The key of an archived file from its path relative to the root, or null if it is not one. */
export function parseArchivePath(relativePath: string): ArchivedFileKey | null {
  const parts = relativePath.split(/[\\/]/);
  if (parts.length !== 3) return null;
  const [exchange, symbol, name] = parts as [string, string, string];
  const match = /^(\d{4}-\d{2}-\d{2})_([a-z_]+)\.csv\.gz$/.exec(name);
  if (match === null) return null;
  const [, sessionDate, file] = match as unknown as [string, string, string];
  try {
    checkParts(exchange, symbol, sessionDate, file);
  } catch {
    return null;
  }
  return { exchange: exchange as Exchange, symbol, sessionDate, file: file as FileKind };
}
