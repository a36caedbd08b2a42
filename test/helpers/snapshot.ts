// A folder prepared once (a synced warehouse and its archive) and put back byte for byte, at the same
// path, for each test that starts from it: what an expensive setup built is paid once per file, the
// absolute paths the warehouse records (the archive's) stay true, and no test sees another's changes.
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface FolderSnapshot {
  /** Replaces whatever is at the folder's path with the saved copy. */
  restore(): void;
  /** Deletes the saved copy (the folder itself belongs to the caller). */
  remove(): void;
}

/** Saves `path` as it is now; call once its setup is done and nothing holds files in it open. */
export function snapshotFolder(path: string): FolderSnapshot {
  const saved = join(mkdtempSync(join(tmpdir(), 'gexwh-snapshot-')), 'saved');
  cpSync(path, saved, { recursive: true });
  return {
    restore() {
      rmSync(path, { recursive: true, force: true });
      cpSync(saved, path, { recursive: true });
    },
    remove() {
      rmSync(join(saved, '..'), { recursive: true, force: true });
    },
  };
}
