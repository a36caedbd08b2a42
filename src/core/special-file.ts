// A file that can never hold data of ours: a device, a pipe, a socket, or a kernel file that stat
// calls regular (`/proc/self/mem`). Opening one blocks, fails with an I/O error or writes into it.
import { realpathSync, statSync, type Stats } from 'node:fs';

/** Kernel folders whose files are views of the system (process memory, devices), never data. */
const KERNEL_FOLDERS = ['/proc/', '/sys/', '/dev/'];
/** Under /dev, a RAM disk (tmpfs) whose regular files are ordinary files a user may keep a warehouse in. */
const RAM_DISK = '/dev/shm/';

/** Whether `path` exists and is such a file (a missing path is not: it can still be created). */
export function isSpecialFile(path: string): boolean {
  const stat = statOrUndefined(path);
  if (stat === undefined || stat.isDirectory()) return false;
  if (!stat.isFile()) return true;
  const real = realpathSync(path);
  return !real.startsWith(RAM_DISK) && KERNEL_FOLDERS.some((folder) => real.startsWith(folder));
}

/** A path that cannot be there (missing, or a file on its way: ENOTDIR) is no special file; the command that uses it says what is wrong. */
function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
    throw error;
  }
}

/** What a file that is not a regular file is, for a message: "… is a FIFO (named pipe), not a regular file". */
export function fileTypeOf(stat: Pick<Stats, 'isFIFO' | 'isCharacterDevice' | 'isBlockDevice' | 'isSocket' | 'isDirectory'>): string {
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isSocket()) return 'a socket';
  if (stat.isDirectory()) return 'a folder';
  return 'of another type';
}
