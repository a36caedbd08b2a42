// A file that failed to load was verified and archived when it was paid for, so it is loaded again
// from the archive for no credit. The archive may have changed since (a deleted folder, a flipped
// byte): each such file is hashed again first, and one whose copy is missing or wrong goes back to
// the downloads, within the run's credit budget like any other file (deferred when none is left).

import { isArchived } from './fetch.js';
import type { Plan, PlannedFile } from './download-plan.js';
import { pairKey } from '../core/pairs.js';

export interface ReloadCheck {
  plan: Plan;
  /** One line per failed_load file whose archived copy could not be used. */
  notes: string[];
}

export async function recheckReloads(plan: Plan, archiveRoot: string): Promise<ReloadCheck> {
  const broken: PlannedFile[] = [];
  for (const file of plan.toReload) if (!(await isArchived(archiveRoot, file))) broken.push(file);
  if (broken.length === 0) return { plan, notes: [] };
  return replanBroken(plan, broken);
}

/** Moves `broken` reloads to the downloads while credits are left, the rest to deferred (pure). */
export function replanBroken(plan: Plan, broken: readonly PlannedFile[]): ReloadCheck {
  const isBroken = new Set(broken);
  const spare = plan.budget.available === null ? Number.POSITIVE_INFINITY : Math.max(0, plan.budget.available - plan.toDownload.length);
  const download = broken.slice(0, Math.min(broken.length, spare));
  const deferred = broken.slice(download.length);
  const pairs = plan.pairs.map((pair) => ({ ...pair }));
  const byKey = new Map(pairs.map((pair) => [pairKey(pair), pair]));
  const notes: string[] = [];
  for (const file of broken) {
    const pair = byKey.get(pairKey(file));
    const paid = download.includes(file);
    if (pair) {
      pair.toReload--;
      if (paid) pair.toDownload++;
      else pair.deferred++;
    }
    notes.push(
      `${file.exchange}/${file.symbol} ${file.sessionDate} ${file.file} failed to load before and its archived copy is missing or not the manifest's sha256: ` +
        (paid ? 'downloaded again (1 credit)' : 'deferred until credits are available'),
    );
  }
  return {
    plan: {
      ...plan,
      toReload: plan.toReload.filter((file) => !isBroken.has(file)),
      toDownload: [...plan.toDownload, ...download],
      deferred: [...plan.deferred, ...deferred],
      budget: { ...plan.budget, used: plan.budget.used + download.length },
      pairs,
    },
    notes,
  };
}
