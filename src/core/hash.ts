// The one way gexwh hashes a file on disk: the archive's copies, the staged export files.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

/** sha256 and size of a file, streamed; the size is what was hashed, not a stat taken apart. */
export async function hashFile(path: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { sha256: hash.digest('hex'), bytes };
}
