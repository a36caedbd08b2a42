// The journal's files (pending.json, the run's spend log, a spend record, a live snapshot) are written
// through the one write path of the archive (core/archive/write-inside.ts: a new temp file created
// exclusively and never through a link, fsynced, renamed over the name, the folder fsynced), so a
// credit the log says was spent was on disk before the download it paid for began. The caller has
// checked that the journal's folder is the archive's own (journal.ts refuseFolderLinkOut).
import { dirname } from 'node:path';
import { writeFileAt } from '../core/archive/write-inside.js';
import { ensureFolder } from '../core/archive/writes.js';

export async function writeDurably(path: string, text: string): Promise<void> {
  // ensureFolder names the real error (EROFS, EACCES), so a read-only archive stops the run.
  ensureFolder(dirname(path));
  await writeFileAt(path, text);
}
