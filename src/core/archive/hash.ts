// An archived file's sha256 and size, re-hashed by streaming (archived files can be large): what
// verify and rebuild compare with the ledger, and what a rebuild from the archive alone records.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';

export interface FileDigest {
  sha256: string;
  bytes: number;
}

/** sha256 and size of a file, or undefined when it does not exist. */
export async function hashFile(path: string): Promise<FileDigest | undefined> {
  const hash = createHash('sha256');
  let bytes = 0;
  try {
    await pipeline(createReadStream(path), async function* (chunks: AsyncIterable<Buffer>) {
      for await (const chunk of chunks) {
        hash.update(chunk);
        bytes += chunk.length;
      }
      yield* [];
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return { sha256: hash.digest('hex'), bytes };
}
