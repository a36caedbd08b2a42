// What a user does about each problem `gexwh verify` reports: one sentence per kind, and whether
// `--repair` (which reloads from an intact archive copy) can fix it. Pure, so every kind is tested.
import type { VerifyProblem, VerifyProblemKind } from './verify.js';

// A loaded file's rows came from the paid bytes and stay right whatever happens to its archived copy
// later; the copy matters for `gexwh rebuild`, so a lost or changed copy is restored from a backup
// (a sync does not buy again a file the warehouse holds).
const LOST_COPY =
  "the warehouse's rows of this file are intact, but gexwh rebuild could not restore them from this copy: restore the file from a backup of the archive";

const NEXT_STEP: Record<VerifyProblemKind, string> = {
  missing_archive: `check that --archive is the folder the syncs wrote to; if it is, ${LOST_COPY}`,
  hash_mismatch: `the archived copy is not the bytes that were paid for; ${LOST_COPY}`,
  size_mismatch: `the archived copy is not the bytes that were paid for; ${LOST_COPY}`,
  manifest_mismatch: 'the API rebuilt this file since it was loaded: the next gexwh sync downloads the new version (1 credit) and replaces the old rows',
  row_count_mismatch: 'the warehouse holds other rows than the archived file: gexwh verify --repair reloads them from the archive',
  unexplained_rows: 'rows no loaded file explains: gexwh verify --repair removes them, or gexwh rebuild recreates the tables from the archive',
  failed_load: 'the file was paid but never loaded: gexwh verify --repair (or gexwh load) loads it from the archive; if it fails again, its error says why',
  outside_archive:
    'a symbolic link (or a recorded path) leads out of the archive and is never followed: put the real file in its place inside the archive (from a backup), then run gexwh verify --repair',
  unconfirmed:
    "run gexwh load or gexwh sync with a key configured: the row is checked against the API's manifest (a listing request, no credit), and a file that is not the API's version is replaced by the next sync",
  unreadable: 'the archived file cannot be read: fix its permissions (it must be a regular file this user can read), then run gexwh verify --repair',
};

/** Kinds `--repair` fixes from the archive alone, when the archived copy is intact. */
const REPAIRABLE: ReadonlySet<VerifyProblemKind> = new Set(['row_count_mismatch', 'unexplained_rows', 'failed_load']);

/** The next step for a problem; after a repair that did not fix a repairable one, the archive copy is the suspect. */
export function nextStepFor(problem: Pick<VerifyProblem, 'kind'>, repairTried: boolean): string {
  if (repairTried && REPAIRABLE.has(problem.kind)) {
    return 'the archive could not repair it (its copy is missing or not the paid bytes, see the other problems of this file): restore the copy from a backup of the archive, then run gexwh verify --repair again';
  }
  return NEXT_STEP[problem.kind];
}
