// The warehouse reads and writes of the sync's stages (src/sync/run.ts): the listing stored where the
// plan reads it, the planner's input read in SQL, the plan's reloads; and how the
// user's selection maps onto the planner's and the name check's.
import type { DuckDBConnection } from '@duckdb/node-api';
import { readPlanState, recordListing, upsertManifest } from '../warehouse/index.js';
import { archivedCopyPath } from '../journal/versions.js';
import type { ManifestListing } from './listing.js';
import type { Plan, PlanInput } from './download-plan.js';
import type { SyncApi } from './sync-types.js';
import type { SyncSelection } from './selection.js';
import { DEFAULT_VENUES, type Pair } from '../core/pairs.js';
import type { VerifiedFile } from '../core/rows.js';
import { definedOnly } from '../core/defined.js';

/** Stores the listed manifests where the plan reads them (the warehouse, or the copy). */
export async function storeListing(conn: DuckDBConnection, listed: ManifestListing['listed']): Promise<void> {
  const now = new Date();
  for (const [key, { rows, completeFrom }] of listed) {
    const [exchange, symbol] = key.split('|') as [string, string];
    await upsertManifest(conn, exchange, symbol, rows, now);
    await recordListing(conn, exchange, symbol, completeFrom, now);
  }
}

/** The planner's input: what the warehouse holds, read in SQL (the anti-joins never cross into JS). */
export async function planInputOf(
  conn: DuckDBConnection,
  pairs: Pair[],
  coverage: readonly Pair[],
  selection: SyncSelection,
  me: Awaited<ReturnType<SyncApi['me']>>,
): Promise<PlanInput> {
  const { since, until, files, reserveCredits, maxCredits, order } = selection;
  const dates = definedOnly({ since, until });
  const state = await readPlanState(conn, { pairs, files, ...dates });
  return {
    // The whole coverage: the planner selects the same pairs again and names the symbols its venue rule leaves out.
    coverage,
    manifest: state.pending,
    ledger: state.ledger,
    loadedByPair: state.loadedByPair,
    selection: { ...selectionOf(selection), files, markets: me.markets, ...dates },
    budget: {
      creditsRemaining: me.creditsRemaining,
      creditsLimit: me.creditsLimit,
      reserve: reserveCredits,
      ...(maxCredits !== undefined ? { maxCredits } : {}),
    },
    order,
  };
}

/** The plan's reloads, loaded from their archived copies. */
export function reloadsOf(plan: Plan, archiveRoot: string): VerifiedFile[] {
  return plan.toReload.map((file) => ({ ...file, archivePath: archivedCopyPath(archiveRoot, file), downloadedAt: new Date(), fromArchive: true }));
}

/** The names to check: a symbol named without a venue must have history on its default venue. */
export function namesOf(selection: SyncSelection) {
  return { ...selectionOf(selection), ...(selection.exchanges || selection.allVenues ? {} : { defaultVenues: DEFAULT_VENUES }) };
}

/** The planner's selection: named venues, every venue, or each symbol's default one. */
export function selectionOf(selection: SyncSelection): { exchanges?: string[]; symbols?: string[]; defaultVenuesOnly?: boolean } {
  return {
    ...(selection.exchanges ? { exchanges: selection.exchanges } : {}),
    ...(selection.exchanges || selection.allVenues ? {} : { defaultVenuesOnly: true }),
    ...(selection.symbols ? { symbols: selection.symbols } : {}),
  };
}
