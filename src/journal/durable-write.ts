// Capture's live snapshots (live-journal.ts, under `<archive>/_live/`) are written through the one
// write path of the archive (core/archive/write-inside.ts: a new temp file created exclusively and
// never through a link, fsynced, renamed over the name, the folder fsynced), so a snapshot taken is on
// disk before the warehouse is touched. The load packages' files go through the same write path from
// package-io.ts (a new file linked to a name that must be new), so a credit a package holds was on
// disk before the download it paid for began. The caller has checked that the journal's folder is
// the archive's own (journal.ts refuseFolderLinkOut).
import { dirname } from 'node:path';
import { writeFileAt } from '../core/archive/write-inside.js';
import { ensureFolder } from '../core/archive/writes.js';

export async function writeDurably(path: string, text: string): Promise<void> {
  // ensureFolder names the real error (EROFS, EACCES), so a read-only archive stops the run.
  ensureFolder(dirname(path));
  await writeFileAt(path, text);
}
