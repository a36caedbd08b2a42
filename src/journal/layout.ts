// The journal's layout on disk, as load packages: one folder per run under
// `<archive>/_journal/packages/<load id>/`, one small file per paid file in the folder of its state
// (`paid/`, `archived/`, `loaded/`, `failed/`, `quarantined/`), its state changed by renaming it from
// one folder to the next, one file per credit in `credits/`, one per manifest listing in `listings/`,
// the run's start in `run.json` and, when the warehouse could not take it, its record in `record.json`
// (`recorded.json` once the warehouse has it). Nothing is rewritten whole: each change is one new
// file, one rename or one removal. Pure: names only, every part built from checked values.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';

export const JOURNAL_FOLDER = '_journal';
export const PACKAGES_FOLDER = 'packages';

/** A paid file's states, in the order it moves through them. */
export const FILE_STATES = ['paid', 'archived', 'loaded', 'failed', 'quarantined'] as const;
export type FileState = (typeof FILE_STATES)[number];
/** A file's first state: written before its link is asked for, left by a rename once its bytes are archived. */
export const PAID_STATE: FileState = 'paid';
/** States a file leaves only by a load: it waits for the warehouse. */
export const WAITING_STATE: FileState = 'archived';

export const RUN_START = 'run.json';
export const RUN_RECORD = 'record.json';
export const RUN_RECORDED = 'recorded.json';
export const CREDITS_FOLDER = 'credits';
export const LISTINGS_FOLDER = 'listings';

/** The journal written before load packages: one file rewritten whole, and the log of a running sync. */
export const LEGACY_JOURNAL = 'pending.json';
export const LEGACY_INFLIGHT = 'inflight.json';
export const LEGACY_SPENT_FOLDER = 'spent';

/** A package folder gexwh wrote: the run's start instant, its command and a random tail; or a migrated journal. */
const PACKAGE_ID = /^(?:\d{8}T\d{6}\.\d{3}Z-[a-z]{1,20}-[0-9a-f]{6}|legacy-[0-9a-f]{16})$/;
/** A file gexwh writes in a package's folders: letters, digits, `.`, `_`, `-`, ending in .json. */
const ENTRY_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,200}\.json$/;

export function journalFolder(archiveRoot: string): string {
  return join(archiveRoot, JOURNAL_FOLDER);
}

export function packagesFolder(archiveRoot: string): string {
  return join(archiveRoot, JOURNAL_FOLDER, PACKAGES_FOLDER);
}

/** The package folder relative to the archive root (what the archive's one write path takes). */
export function packageRelative(id: string): string {
  return join(JOURNAL_FOLDER, PACKAGES_FOLDER, id);
}

/** Pure but for the random tail: a new package's id, sorting by the run's start. */
export function newPackageId(command: string, startedAt: Date | string): string {
  const stamp = new Date(startedAt).toISOString().replace(/[-:]/g, '');
  const name = /^[a-z]{1,20}$/.test(command) ? command : 'run';
  return `${stamp}-${name}-${randomBytes(3).toString('hex')}`;
}

/** The id of the package a legacy journal migrates to: the same file always makes the same package. */
export function legacyPackageId(sha256: string): string {
  return `legacy-${sha256.slice(0, 16)}`;
}

export function isPackageId(name: string): boolean {
  return PACKAGE_ID.test(name);
}

export function isEntryName(name: string): boolean {
  return ENTRY_NAME.test(name);
}

/** A paid file's job name: the same file version has the same name in every state. */
export function jobName(file: { exchange: string; symbol: string; sessionDate: string; file: string; sha256: string }): string {
  return `${file.sessionDate}_${file.file}_${file.exchange}_${file.symbol}_${file.sha256.slice(0, 16)}.json`;
}

/** A credit's file: its place in the run, zero-padded so the names sort as they were written. */
export function creditName(seq: number): string {
  return `${String(seq).padStart(8, '0')}.json`;
}

/** A fresh name for a listing or a refused entry (never reused, so writing it never replaces one). */
export function freshName(prefix: string): string {
  const seq = (written++).toString(36).padStart(6, '0');
  return `${prefix}-${Date.now().toString(36)}-${seq}-${randomBytes(3).toString('hex')}.json`;
}

/** Names made in one process sort in the order they were made. */
let written = 0;
