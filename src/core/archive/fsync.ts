// fsync of a folder, so a rename in it survives a power cut.
import { promises as fs } from 'node:fs';

/** fsync a folder so a rename survives a power cut; not possible on every platform (Windows). */
export async function syncFolder(folder: string): Promise<void> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(folder, 'r');
    await handle.sync();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EISDIR' && code !== 'EPERM' && code !== 'EINVAL' && code !== 'EBADF') throw error;
  } finally {
    await handle?.close();
  }
}
