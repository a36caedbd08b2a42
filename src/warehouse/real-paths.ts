// Paths as DuckDB's sandbox holds them: it resolves links in the folders it is given, so what it
// lists is compared with both the path given and the path resolved.
import { realpathSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';

export function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The path with its longest existing head resolved (links followed) and the rest kept as it is. */
export function realpathOfExisting(path: string): string {
  const tail: string[] = [];
  let head = path.endsWith(sep) && path.length > 1 ? path.slice(0, -1) : path;
  for (;;) {
    try {
      return join(realpathSync(head), ...tail);
    } catch {
      const parent = dirname(head);
      if (parent === head) return path;
      tail.unshift(basename(head));
      head = parent;
    }
  }
}

export function withSeparator(folder: string): string {
  return folder.endsWith(sep) ? folder : `${folder}${sep}`;
}
