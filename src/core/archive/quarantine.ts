// An archived file whose bytes are not the version they should be (a flipped byte, a file put there
// by hand, a copy swapped in) is never loaded and never deleted: it moves to
// `<archive>/_quarantine/<exchange>/<symbol>/<name>.<UTC time>` with a note beside it saying what was
// expected and found. Its place in the archive is then free, so the file goes back into the plan.
import { promises as fs } from 'node:fs';
import { basename, dirname, join, relative } from 'node:path';
import { syncFolder } from './fsync.js';
import { realRoot } from './confine.js';
import { folderInside, writeFileInside } from './write-inside.js';

export const QUARANTINE_FOLDER = '_quarantine';

export interface QuarantineNote {
  /** Why the file was set aside, in a sentence. */
  reason: string;
  /** The sha256 the manifest or ledger gives for this file, when one does. */
  expectedSha256: string | null;
  /** Null when the file was refused on its size, unread. */
  foundSha256: string | null;
  foundBytes: number;
  /** The command that found it. */
  command: string;
}

/** `20261122T101500Z` */
function stamp(at: Date): string {
  return at
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
}

/**
 * Moves `<root>/<relativePath>` (the entry itself: a link is moved, not its target) into the
 * quarantine folder and writes its note. Returns where it went, under `root`; undefined when the
 * file was already gone.
 */
export async function quarantineFile(root: string, relativePath: string, note: QuarantineNote, at: Date = new Date()): Promise<string | undefined> {
  const base = await realRoot(root);
  if (base === undefined) return undefined;
  const source = join(base, relativePath);
  // The quarantine is part of the archive: a folder of it that is a link out is never written through.
  const folder = await folderInside(base, join(QUARANTINE_FOLDER, dirname(relativePath)));
  const target = await freeName(join(folder, `${basename(relativePath)}.${stamp(at)}`));
  try {
    await fs.rename(source, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const moved = join(root, relative(base, target));
  const record = { file: relativePath, moved_to: moved, at: at.toISOString(), ...snakeCase(note) };
  // A new name: a link planted at the note's name is an error, never a way to write elsewhere.
  await writeFileInside(base, `${relative(base, target)}.note.json`, `${JSON.stringify(record, null, 2)}\n`, { exclusive: true });
  await syncFolder(dirname(source));
  await syncFolder(folder);
  return moved;
}

function snakeCase(note: QuarantineNote): Record<string, unknown> {
  return { reason: note.reason, expected_sha256: note.expectedSha256, found_sha256: note.foundSha256, found_bytes: note.foundBytes, command: note.command };
}

async function freeName(base: string): Promise<string> {
  for (let n = 1; ; n += 1) {
    const candidate = n === 1 ? base : `${base}-${n}`;
    // Free when neither the file's name nor its note's is taken (by anything: a link too).
    const taken = await Promise.all(
      [candidate, `${candidate}.note.json`].map((path) =>
        fs.lstat(path).then(
          () => true,
          () => false,
        ),
      ),
    );
    if (!taken.includes(true)) return candidate;
  }
}
