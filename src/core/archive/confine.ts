// One rule for every command that reads the archive (verify, rebuild, load, a sync's reuse of archived
// copies): a path is resolved under the archive root after following every link (realpath), and a
// path that ends outside the root is refused, never opened. A link that stays inside is followed.
import { promises as fs } from 'node:fs';
import { dirname, join, relative, isAbsolute, sep } from 'node:path';

export type Located =
  | { kind: 'found'; /** where the tool looked: `<root>/<relative>` */ path: string; /** the file itself, inside the root */ real: string }
  | { kind: 'missing'; path: string }
  | { kind: 'refused'; path: string; reason: string };

/** True when `path` is `root` or below it (both already resolved). */
export function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}

/** The archive root after following links; undefined when it does not exist. */
export async function realRoot(root: string): Promise<string | undefined> {
  try {
    return await fs.realpath(root);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

/** Where `relativePath` (built from validated parts) is under `root`, links followed but never out of it. */
export async function locateInArchive(root: string, relativePath: string): Promise<Located> {
  const path = join(root, relativePath);
  const base = await realRoot(root);
  if (base === undefined) return { kind: 'missing', path };
  let real: string;
  try {
    real = await fs.realpath(join(base, relativePath));
  } catch (error) {
    if (isMissing(error)) return { kind: 'missing', path };
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') return { kind: 'refused', path, reason: `${path}: a loop of symbolic links: not followed` };
    throw error;
  }
  if (!isInside(base, real)) return { kind: 'refused', path, reason: leavesArchive(path, real, base) };
  return { kind: 'found', path, real };
}

/** The warning of a link that leads out of the archive. */
export function leavesArchive(path: string, real: string, base: string): string {
  return `${path} is a symbolic link (or lies under one) to ${real}, outside the archive ${base}: not followed`;
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * Why a folder the tool is about to write in (`<root>/<relativeFolder>`, made from validated parts)
 * would lead out of the archive through a link, or undefined when it stays inside (or does not exist
 * yet: it is then created inside).
 */
export async function folderLeavesArchive(root: string, relativeFolder: string): Promise<string | undefined> {
  const base = await realRoot(root);
  if (base === undefined) return undefined;
  for (let folder = join(base, relativeFolder); isInside(base, folder); folder = dirname(folder)) {
    const real = await fs.realpath(folder).catch(() => undefined);
    if (real !== undefined) return isInside(base, real) ? undefined : leavesArchive(join(root, relativeFolder), real, base);
    if (folder === base) return undefined;
  }
  return undefined;
}
