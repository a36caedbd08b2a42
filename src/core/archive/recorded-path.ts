// The ledger and the journal record where a file version is as a path relative to the archive root,
// `<exchange>/<symbol>/<name>`. Earlier versions recorded absolute or working-folder-relative paths
// (`data/raw/deribit/BTC/...`). A recorded path is never opened as written: it only says which of the
// two names the version has (the plain name, or the pending name of a newer version); the place is
// then built from the row's validated parts under the archive root of this run.
import { isAbsolute, relative, resolve, win32 } from 'node:path';
import { errorMessage } from '../errors.js';
import { relativeArchivePath, relativePendingPath } from './layout.js';

export interface FileVersionKey {
  exchange: string;
  symbol: string;
  sessionDate: string;
  file: string;
  sha256: string;
}

export type RecordedPath = { relative: string; pending: boolean } | { refused: string };

/** The names a version may have, relative to the root; throws UnsafeResponseError for invalid parts. */
function namesOf(key: FileVersionKey): { plain: string; pending: string } {
  return { plain: relativeArchivePath(key), pending: relativePendingPath(key, key.sha256) };
}

/**
 * The relative path a recorded one stands for, or why it is refused. Accepted: the relative form;
 * an absolute path inside `root`; an old working-folder-relative path, by its last three parts
 * (resolved under the root, never the working folder). Anything else (outside the root, `..`, a
 * name that is not this version's) is refused.
 */
export function readRecordedPath(recorded: string, key: FileVersionKey, root: string): RecordedPath {
  let names: { plain: string; pending: string };
  try {
    names = namesOf(key);
  } catch (error) {
    return { refused: errorMessage(error) };
  }
  const candidate = candidateOf(recorded, root);
  if ('refused' in candidate) return candidate;
  if (candidate.relative === names.plain) return { relative: names.plain, pending: false };
  if (candidate.relative === names.pending) return { relative: names.pending, pending: true };
  return { refused: `${JSON.stringify(recorded)} is not the archive name of ${names.plain} (or of its pending version ${names.pending})` };
}

function candidateOf(recorded: string, root: string): { relative: string } | { refused: string } {
  const absolute = isAbsolute(recorded) || win32.isAbsolute(recorded);
  const inRoot = absolute ? relative(resolve(root), recorded) : recorded;
  const parts = inRoot.replaceAll('\\', '/').split('/');
  if (parts.includes('..') || (absolute && isAbsolute(inRoot))) {
    return { refused: `${JSON.stringify(recorded)} leaves the archive ${root}` };
  }
  if (absolute && parts.length !== 3) return { refused: `${JSON.stringify(recorded)} is not a daily file of the archive ${root}` };
  return { relative: parts.slice(-3).join('/') };
}
