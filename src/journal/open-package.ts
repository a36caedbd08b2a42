// The load package of the run this process has going, per archive: the sync's other writes to the
// journal (held.ts) put the run's own files and record there, and the adoption of stopped runs
// (stopped-runs.ts) leaves it alone. One at a time per archive: the sync lock.
import { resolve } from 'node:path';
import type { VerifiedFile } from '../core/rows.js';
import type { JournaledRun } from './entries.js';

/** Why a run record came from an open package: the process ended before it could write one. */
export const STOPPED_HARD = 'the process stopped before the run finished (a second signal, kill -9 or a crash); the credits were recorded as they were spent';

export interface OpenPackage {
  folder: string;
  command: string;
  startedAt: number;
  /** Files of this package that stay waiting when the run closes; returns those it does not hold. */
  keep(files: readonly VerifiedFile[]): VerifiedFile[];
  /** The run's record, for the journal: written in the package. */
  record(run: JournaledRun): Promise<void>;
}

const openPackages = new Map<string, OpenPackage>();

export function openPackageOf(archiveRoot: string): OpenPackage | undefined {
  return openPackages.get(resolve(archiveRoot));
}

export function registerOpenPackage(archiveRoot: string, open: OpenPackage): void {
  openPackages.set(resolve(archiveRoot), open);
}

export function unregisterOpenPackage(archiveRoot: string, open: OpenPackage): void {
  if (openPackages.get(resolve(archiveRoot)) === open) openPackages.delete(resolve(archiveRoot));
}
