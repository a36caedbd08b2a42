// A user-chosen output file (`chart --out`, `report --out`, `plan --out`) written whole or not at
// all: a temporary file beside it, then a rename over the name.
import { randomBytes } from 'node:crypto';
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * The temp file's name is random and made new ('wx': O_CREAT|O_EXCL, which never follows a link):
 * with `.<name>.<pid>.tmp` opened 'w', a link planted at that name by anyone who may write the
 * output folder was written through (the report landed in the file it named), then renamed into the
 * output's place.
 */
export function writeBeside(target: string, content: Buffer | string): void {
  const temporary = join(dirname(target), `.${basename(target)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    writeFileSync(temporary, content, { flag: 'wx' });
    renameSync(temporary, target);
  } catch (error) {
    // EEXIST: the name was someone else's, never ours to remove.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') rmSync(temporary, { force: true });
    throw error;
  }
}
