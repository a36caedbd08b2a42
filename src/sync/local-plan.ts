// The plan of the next sync from what the warehouse holds, without the network: the coverage and the
// manifests last stored, the selection and the key's budget, through the one planner. `doctor`
// prints its totals, so they equal `plan`'s when nothing moved since the manifests were last listed.
import type { DuckDBConnection } from '@duckdb/node-api';
import { listCoverage } from '../warehouse/index.js';
import { planSync, selectPairs, type Plan } from './download-plan.js';
import { planInputOf, selectionOf } from './stage-io.js';
import type { SyncSelection } from './selection.js';
import type { SyncApi } from './sync-types.js';

export type BudgetFacts = Awaited<ReturnType<SyncApi['me']>>;

/** Without /me (no key, API down): every market, no budget. */
const UNKNOWN_BUDGET: BudgetFacts = { markets: ['crypto', 'tradfi'], creditsLimit: 0, creditsRemaining: null };

export async function planFromWarehouse(conn: DuckDBConnection, selection: SyncSelection, me: BudgetFacts | undefined): Promise<Plan> {
  const facts = me ?? UNKNOWN_BUDGET;
  const coverage = await listCoverage(conn);
  const pairs = selectPairs(coverage, { ...selectionOf(selection), markets: facts.markets });
  return planSync(await planInputOf(conn, pairs, coverage, selection, facts));
}
