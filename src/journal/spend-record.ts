// The spend record of a journaled run: the credit files of its own package (layout.ts), each written
// as the credit was paid, before its download started. The journal's run records are claims anyone
// who can write the archive can edit; the credits a journaled run may record are at most what its
// package wrote down. A claim beyond it is refused with a warning, never stored.
import { dirname, join } from 'node:path';
import { CREDITS_FOLDER } from './layout.js';
import { entriesOf, readJson } from './package-io.js';
import { spentOf, type PackageEntry } from './packages.js';
import { placesOf } from './journal.js';

/** The credits (and links lost) the package of a run read from the journal holds; 0 when it has none. */
export async function recordedSpend(run: object): Promise<{ credits: number; linksLost: number }> {
  const place = placesOf(run)[0];
  if (place === undefined) return { credits: 0, linksLost: 0 };
  const folder = join(dirname(place), CREDITS_FOLDER);
  const credits: PackageEntry[] = [];
  for (const entry of await entriesOf(folder)) {
    if (!entry.file || !entry.name.endsWith('.json')) continue;
    const path = join(folder, entry.name);
    credits.push({ name: entry.name, path, read: await readJson(path) });
  }
  const spent = spentOf(credits);
  return { credits: spent.credits, linksLost: spent.linksLost };
}
