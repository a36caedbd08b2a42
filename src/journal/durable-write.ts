// The one way the journal's files are written (pending.json, the run's spend log, a live snapshot):
// a temp file in the same folder created exclusively, written, fsynced, renamed over the name, and the
// folder fsynced, so after a crash or a power cut the file is the old one or the new one, never half,
// and a credit the log says was spent was on disk before the download it paid for began.
import { promises as fs } from 'node:fs';
import { dirname } from 'node:path';
import { syncFolder, tempPathFor } from '../core/archive/writes.js';

export async function writeDurably(path: string, text: string): Promise<void> {
  // tempPathFor makes the folder naming the real error (EROFS, EACCES), so a read-only archive stops the run.
  const temp = tempPathFor(path);
  const handle = await fs.open(temp, 'wx');
  try {
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(temp, path);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
  await syncFolder(dirname(path));
}
