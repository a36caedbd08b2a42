// Before a file is loaded: its header mapped by name (a file without the columns a row cannot exist
// without fails, named), its schema_version found, and, under the `freeze` contract, whether its
// layout is new and it is held instead.
import type { DuckDBConnection } from '@duckdb/node-api';
import { mapHeader, parseHeaderLine, readGzipHeaderLine, type HeaderMapping } from './csv-header.js';
import type { LedgerFile } from './ledger.js';
import { manifestRowsOf } from './manifest.js';
import { heldReason, type LayoutState, type SchemaContract } from './schema-evolution.js';
import { errorMessage } from '../core/errors.js';
import { fileKey } from '../core/pairs.js';
import type { StoredManifestRow } from '../core/rows.js';

export interface LoadInput extends LedgerFile {
  /** The verified .csv.gz to read (in the archive). */
  path: string;
  bytes: number;
  /** Row count from the manifest. */
  rows: number;
  /** Relative to the archive root (the ledger's archive_path). */
  archivePath: string;
  downloadedAt: Date | string;
  /** Where the file is, for messages, when `path` means nothing to a user (an open descriptor, a private copy). */
  source?: string;
  /** The manifest's schema_version; when absent (or 0), the stored manifest row's is used. */
  schemaVersion?: number;
}

/** Describes a file for messages: kind, market, session and where it is. */
export function describeFile(input: LoadInput): string {
  return `${input.file} file ${input.exchange}/${input.symbol}/${input.sessionDate} (${input.source ?? input.path})`;
}

export interface Prepared {
  input: LoadInput;
  mapping: HeaderMapping;
  /** The manifest's schema_version, when known. */
  version: number | null;
}

/** Each input's schema_version: its own, else the stored manifest row's of the same sha256. */
export async function versionsOf(conn: DuckDBConnection, round: readonly LoadInput[]): Promise<Map<LoadInput, number>> {
  const versions = new Map<LoadInput, number>();
  const unknown = round.filter((input) => !(Number.isInteger(input.schemaVersion) && (input.schemaVersion ?? 0) > 0));
  const manifest = unknown.length > 0 ? await manifestRowsOf(conn, unknown) : new Map<string, StoredManifestRow>();
  for (const input of round) {
    const row = manifest.get(fileKey(input));
    const version = unknown.includes(input) ? (row?.sha256 === input.sha256 ? row.schema_version : undefined) : input.schemaVersion;
    if (version !== undefined) versions.set(input, version);
  }
  return versions;
}

/** Under `freeze`, a file with a new layout is held (reported, nothing recorded). */
export function holds(
  prepared: Prepared,
  contract: SchemaContract | undefined,
  state: LayoutState,
  report: { held: Array<{ input: LoadInput; reason: string }> },
): boolean {
  if (contract !== 'freeze') return false;
  const reason = heldReason(prepared.input.file, prepared.mapping, prepared.version, state);
  if (reason === undefined) return false;
  report.held.push({ input: prepared.input, reason: `${describeFile(prepared.input)}: ${reason}` });
  return true;
}

/** The header mapped by name; a file without the columns a row cannot exist without fails, named. */
export async function prepareHeader(input: LoadInput, version: number | null): Promise<Prepared | { error: string }> {
  try {
    const mapping = mapHeader(input.file, parseHeaderLine(await readGzipHeaderLine(input.path)));
    if (mapping.missing.length > 0) {
      const names = mapping.missing.map((name) => `"${name}"`).join(', ');
      return { error: `${describeFile(input)}: missing required column ${names} (a ${input.file} row cannot exist without it)` };
    }
    return { input, mapping, version };
  } catch (error) {
    return { error: `${describeFile(input)}: cannot read the header: ${errorMessage(error)}` };
  }
}
