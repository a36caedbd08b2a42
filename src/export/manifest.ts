// `_gexwh_export.json`: the last file an export writes. It lists every object of the export (path
// under the root, table, partition, rows, bytes, sha256) with the warehouse's schema version and
// the time, so a reader (or a job that copies the export) can take exactly a finished export.
import { latestVersion } from '../warehouse/migrations.js';

export const MANIFEST_FILE = '_gexwh_export.json';

/** The manifest's own layout version: a reader checks it before trusting the fields below. */
export const MANIFEST_VERSION = 1;

export interface ManifestObject {
  /** The table the object holds rows of; null for views.sql. */
  table: string | null;
  /** Under the export root, with forward slashes. */
  path: string;
  rows: number | null;
  bytes: number | null;
  /** Of the bytes as written; null for a partition written by a version that did not keep it. */
  sha256: string | null;
  partition?: { exchange: string; symbol: string; session_date: string };
}

export interface ManifestInput {
  format: 'parquet' | 'csv';
  objects: readonly ManifestObject[];
  exportedAt: Date;
  /** The warehouse schema version (the last migration); defaults to the one shipped. */
  warehouseVersion?: number;
}

/** The manifest text (pure apart from the default schema version): tables summed, objects listed. */
export function exportManifest(input: ManifestInput): string {
  const tables: Record<string, { objects: number; rows: number }> = {};
  for (const object of input.objects) {
    if (object.table === null) continue;
    const entry = (tables[object.table] ??= { objects: 0, rows: 0 });
    entry.objects += 1;
    entry.rows += object.rows ?? 0;
  }
  const manifest = {
    manifest_version: MANIFEST_VERSION,
    warehouse_version: input.warehouseVersion ?? latestVersion(),
    exported_at: input.exportedAt.toISOString(),
    format: input.format,
    tables,
    objects: input.objects,
  };
  return `${JSON.stringify(manifest, null, 1)}\n`;
}

/**
 * The sha256 of each object a manifest lists, by path; an unreadable manifest lists nothing. With
 * `withoutSha`, objects without a sha256 (written by an older version) are listed too, with ''.
 */
export function manifestHashes(text: string | null, options: { withoutSha?: boolean } = {}): Map<string, string> {
  const hashes = new Map<string, string>();
  if (text === null) return hashes;
  try {
    const parsed = JSON.parse(text) as { manifest_version?: unknown; objects?: Array<{ path?: unknown; sha256?: unknown }> };
    if (parsed.manifest_version !== MANIFEST_VERSION || !Array.isArray(parsed.objects)) return hashes;
    for (const object of parsed.objects) {
      if (typeof object.path !== 'string') continue;
      if (typeof object.sha256 === 'string') hashes.set(object.path, object.sha256);
      else if (options.withoutSha) hashes.set(object.path, '');
    }
  } catch {
    // A manifest we cannot read proves nothing: every object is checked instead.
  }
  return hashes;
}
