// Where an export's files go. The export writes each partition to a local temp file first (DuckDB's
// COPY), then hands it to a target that puts it in place whole: a local folder (a rename on the same
// file system) or an object store (one upload per object, see s3.ts).
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { placeFileInside, writeFileInside } from '../core/archive/write-inside.js';
import { MANIFEST_FILE, manifestHashes } from './manifest.js';
import { hashFile } from '../core/hash.js';
import type { ClickHouseSource } from './clickhouse.js';

/**
 * The name prefix of an export's staging folders. Staged files end in .tmp so no *.parquet / *.csv
 * glob of a reader ever matches them, and the folder is hidden; a crashed run's folder is named in
 * the next export's warnings.
 */
export const STAGING_PREFIX = '.gexwh-export-';

/** A file as it was put in place: what the manifest lists. */
export interface StoredFile {
  sha256: string;
  bytes: number;
}

/** A partition file the export ledger says was written, as recorded. */
export interface RecordedFile {
  path: string;
  sha256: string | null;
  bytes: number | null;
}

export interface ExportTarget {
  /** The export's root as the ledger and views.sql name it: an absolute folder or s3://bucket/prefix. */
  readonly root: string;
  /** Whether staged files sit on the target's own file system (renamed into place) or are uploaded. */
  readonly local: boolean;
  /** How ClickHouse reaches the files: file() on the folder, or s3() on the prefix's HTTP(S) URL. */
  readonly clickhouse: ClickHouseSource;
  /** A folder for staged files: beside the export when local (renames stay atomic), else in the OS temp folder. */
  stagingRoot(): string;
  /** Where a file goes, from a path relative to the root (`levels/exchange=x/.../data.parquet`). */
  pathOf(relative: string): string;
  /** The recorded files still there as recorded; the others are written again. */
  held(files: readonly RecordedFile[]): Promise<Set<string>>;
  /** Puts a finished temp file at `path` whole (the temp file is gone afterwards). */
  place(tempFile: string, path: string, fingerprint: string): Promise<StoredFile>;
  /** Writes a small text file (views.sql, the manifest) whole. */
  putText(path: string, text: string): Promise<StoredFile>;
  /** The paths under the root that the previous export's manifest lists: the only objects an export may remove. */
  listed(): ReadonlySet<string>;
  /** Up to `limit` of what the root holds now (full paths; gexwh's own staging left out): empty when nothing. */
  occupants(limit: number): Promise<string[]>;
  /**
   * Removes the object at `relative` under the root, which the caller made from validated names and
   * found in listed(); false when it is not there or (local) its folder resolves outside the root.
   */
  remove(relative: string): Promise<boolean>;
}

export function hashText(text: string): StoredFile {
  return { sha256: createHash('sha256').update(text).digest('hex'), bytes: Buffer.byteLength(text) };
}

/** The paths a manifest text lists (its objects' paths), empty when there is none or it cannot be read. */
export function listedPaths(manifest: string | null): Set<string> {
  return new Set(manifestHashes(manifest, { withoutSha: true }).keys());
}

/** The paths the manifest of a local export folder lists; empty when it has none that gexwh can read. */
export function localManifestPaths(outDir: string): Set<string> {
  return listedPaths(readLocalManifest(outDir));
}

/** The manifest a folder holds, or null. */
function readLocalManifest(outDir: string): string | null {
  try {
    return readFileSync(join(outDir, MANIFEST_FILE), 'utf8');
  } catch {
    return null;
  }
}

/** Whether `path` is a regular file whose folder, links followed, lies inside `root` (links followed too). */
export function fileInside(root: string, path: string): boolean {
  try {
    const folder = realpathSync(dirname(path));
    const base = realpathSync(root);
    return (folder === base || folder.startsWith(`${base}${sep}`)) && lstatSync(path).isFile();
  } catch {
    return false;
  }
}

/** `path` (made by pathOf) as the path under the root the write helper takes. */
function underRoot(outDir: string, path: string): string {
  const rel = relative(outDir, path);
  if (rel === '' || rel.startsWith('..')) throw new Error(`export: ${path} is not under ${outDir}`);
  return rel;
}

/** A local folder: renames on one file system, so a reader sees the old file or the new one. */
export function localTarget(outDir: string): ExportTarget {
  // Read before this run writes its own manifest: what the previous run wrote is what may be removed.
  const listed = listedPaths(readLocalManifest(outDir));
  return {
    root: outDir,
    local: true,
    clickhouse: { kind: 'file', root: outDir },
    stagingRoot: () => outDir,
    pathOf: (relative) => join(outDir, relative),
    held: async (files) => new Set(files.filter((f) => existsSync(f.path)).map((f) => f.path)),
    // Every file goes through the one write helper: a folder of the export that is a link out of it
    // is refused, a link at a file's name is replaced (never written through), each file is fsynced.
    async place(tempFile, path) {
      const stored = hashFile(tempFile);
      await placeFileInside(outDir, tempFile, underRoot(outDir, path));
      return stored;
    },
    async putText(path, text) {
      await writeFileInside(outDir, underRoot(outDir, path), text);
      return hashText(text);
    },
    listed: () => listed,
    occupants: (limit) => Promise.resolve(folderEntries(outDir, limit, (name) => name.startsWith(STAGING_PREFIX))),
    async remove(relative) {
      const path = join(outDir, relative);
      if (!fileInside(outDir, path)) return false;
      rmSync(path);
      return true;
    },
  };
}

/** Up to `limit` entries of a local folder (none when it does not exist), as paths, without those `ignore` names. */
export function folderEntries(folder: string, limit: number, ignore: (name: string) => boolean): string[] {
  return entriesOf(folder)
    .filter((name) => !ignore(name))
    .sort()
    .slice(0, limit)
    .map((name) => join(folder, name));
}

function entriesOf(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}
