// A newer version of a file (a new sha256 in the manifest for a session already loaded) is archived
// beside the loaded one, never over it, so a failed download or load of the new version leaves the
// old one whole for verify and rebuild. Once the new version's rows are committed it takes the plain
// name, which removes the old copy: the ledger keeps the old version as superseded, with no copy.

import type { DuckDBConnection } from '@duckdb/node-api';
import { join } from 'node:path';
import { forgetArchivePath, loadedPendingCopies, recordArchiveMove } from '../warehouse/index.js';
import { promoteVersion } from '../core/archive/writes.js';
import { relativeArchivePath, relativePendingPath } from '../core/archive/layout.js';
import { readRecordedPath } from '../core/archive/recorded-path.js';
import { locateInArchive } from '../core/archive/confine.js';
import type { PlannedFile } from '../core/rows.js';

/** Where this version is (or goes) in the archive: the pending name when it replaces a loaded version. */
export function archivedCopyPath(root: string, file: PlannedFile): string {
  return join(root, archivedCopyRelative(file));
}

/** The same place relative to the archive root: what the ledger and the journal record. */
export function archivedCopyRelative(file: PlannedFile): string {
  return file.replaces === undefined ? relativeArchivePath(file) : relativePendingPath(file, file.sha256);
}

/**
 * Gives each loaded version still under a pending name the plain name, and says so in the ledger.
 * Asks the ledger, so a move a crash interrupted is finished by the next sync. A recorded path the
 * tool refuses (outside the archive, not the version's name) is never followed: it is forgotten,
 * with a warning, and nothing is moved.
 */
export async function promoteLoadedVersions(conn: DuckDBConnection, root: string): Promise<{ moved: number; warnings: string[] }> {
  const result = { moved: 0, warnings: [] as string[] };
  for (const copy of await loadedPendingCopies(conn)) {
    const recorded = readRecordedPath(copy.archivePath, copy, root);
    if ('refused' in recorded) {
      result.warnings.push(
        `the ledger's archive path of ${copy.exchange}/${copy.symbol} ${copy.sessionDate} ${copy.file} is refused and forgotten: ${recorded.refused}`,
      );
      await forgetArchivePath(conn, copy);
      continue;
    }
    const plain = relativeArchivePath(copy);
    const pending = await locateInArchive(root, recorded.relative);
    if (pending.kind === 'refused') {
      result.warnings.push(`${pending.reason}; the pending version stays where it is`);
      continue;
    }
    // Missing: moved already (a crash after the rename), only the ledger is behind.
    if (pending.kind === 'found') {
      // The file first: after a crash in between, the plain name holds the loaded version (what verify reads).
      await promoteVersion(pending.path, join(root, plain));
      result.moved++;
    }
    await recordArchiveMove(conn, copy, plain);
  }
  return result;
}
