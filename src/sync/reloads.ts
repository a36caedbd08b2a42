// What the archive already holds of the files a plan considers, checked before planning: a copy with
// the manifest's size and sha256 was paid for by an earlier run (a failed load, a crash or a lost
// warehouse before the load) and loads for no credit. The archive may have changed since (a deleted
// folder, a flipped byte), so each copy is hashed; a failed load whose copy is missing or wrong is
// paid again. The planner (download-plan.ts) does the budget arithmetic with these facts.

import { archivedCopyRelative } from '../journal/versions.js';
import { hashArchived } from '../core/archive/pin.js';
import type { Plan } from './download-plan.js';
import { fileVersionKey } from '../core/pairs.js';
import type { PlannedFile } from '../core/rows.js';

/** The versions among `files` whose archived copy is intact, by fileVersionKey. */
export async function archivedVersions(files: readonly PlannedFile[], archiveRoot: string): Promise<Set<string>> {
  const intact = new Set<string>();
  for (const file of files) if (await isArchived(archiveRoot, file)) intact.add(fileVersionKey(file));
  return intact;
}

/**
 * True when the archive already holds this exact version (a crash between archive and load). Read
 * inside the archive only (a link out of it is not followed); the load hashes the copy again.
 */
async function isArchived(root: string, file: PlannedFile): Promise<boolean> {
  const relative = archivedCopyRelative(file);
  const found = await hashArchived(root, relative, { maxBytes: file.bytes });
  return found.kind === 'hashed' && found.bytes === file.bytes && found.sha256 === file.sha256;
}

/** One line per failed load whose archived copy could not be used, saying what the plan does with it. */
export function brokenReloadNotes(plan: Pick<Plan, 'brokenReloads' | 'toDownload'>): string[] {
  // By version, not by object: a plan read back from a plan file holds copies.
  const paid = new Set(plan.toDownload.map(fileVersionKey));
  return plan.brokenReloads.map(
    (file) =>
      `${file.exchange}/${file.symbol} ${file.sessionDate} ${file.file} failed to load before and its archived copy is missing or not the manifest's sha256: ` +
      (paid.has(fileVersionKey(file)) ? 'downloaded again (1 credit)' : 'deferred until credits are available'),
  );
}
