// A newer version of a file (a new sha256 in the manifest for a session already loaded) is archived
// beside the loaded one, never over it, so a failed download or load of the new version leaves the
// old one whole for verify and rebuild. Once the new version's rows are committed it takes the plain
// name, which removes the old copy: the ledger keeps the old version as superseded, with no copy.

import type { DuckDBConnection } from '@duckdb/node-api';
import { existsSync } from 'node:fs';
import { loadedPendingCopies, recordArchiveMove } from '../warehouse/index.js';
import { promoteVersion } from './archive-writes.js';
import type { PlannedFile } from './download-plan.js';
import { archivePath, pendingVersionPath } from '../core/archive/layout.js';

/** Where this version is (or goes) in the archive: the pending name when it replaces a loaded version. */
export function archivedCopyPath(root: string, file: PlannedFile): string {
  return file.replaces === undefined
    ? archivePath(root, file.exchange, file.symbol, file.sessionDate, file.file)
    : pendingVersionPath(root, file.exchange, file.symbol, file.sessionDate, file.file, file.sha256);
}

/**
 * Gives each loaded version still under a pending name the plain name, and says so in the ledger.
 * Asks the ledger, so a move a crash interrupted is finished by the next sync.
 */
export async function promoteLoadedVersions(conn: DuckDBConnection, root: string): Promise<number> {
  let moved = 0;
  for (const copy of await loadedPendingCopies(conn)) {
    const plain = archivePath(root, copy.exchange, copy.symbol, copy.sessionDate, copy.file);
    if (copy.archivePath === plain) continue;
    if (!existsSync(copy.archivePath)) {
      // Moved already (a crash after the rename): only the ledger is behind.
      await recordArchiveMove(conn, copy, plain);
      continue;
    }
    // The file first: after a crash in between, the plain name holds the loaded version (what verify reads).
    await promoteVersion(copy.archivePath, plain);
    await recordArchiveMove(conn, copy, plain);
    moved++;
  }
  return moved;
}
