// Child process of scenario 4 (its peak RSS is the measure): synthetic manifests of Y years × S
// symbols × 3 files. Modes:
//   upsert <db>  — upsertManifest of every pair's rows into a fresh warehouse.
//   mark-loaded <db> — setup: marks every manifest row loaded in the ledger (the nightly state).
//   plan <db>    — what a sync's plan phase does: readPlanState (the anti-join in SQL) + planSync.
//   plan-full <db> — the earlier plan phase, for comparison: listManifest + listLedger + planSync.
//   idle <db>    — opens the warehouse and does nothing (the RSS baseline).
// Prints one JSON line: {ms, rows, ...}.
import { openWarehouse, upsertManifest, listManifest, listLedger, readPlanState } from '../src/warehouse/index.js';
import { planSync } from '../src/sync/download-plan.js';
import type { ManifestRow } from '../src/core/rows.js';

const KINDS = ['levels', 'strikes_total', 'strikes_by_expiry'] as const;
const [mode, dbPath] = process.argv.slice(2) as [string, string];
const years = Number(process.env.PLAN_YEARS ?? 5);
const symbols = Array.from({ length: Number(process.env.PLAN_SYMBOLS ?? 20) }, (_, i) => `SYM${i}`);
const LAST_DATE = Date.parse('2026-03-10T00:00:00Z');

function manifestRows(symbol: string): ManifestRow[] {
  const rows: ManifestRow[] = [];
  for (let day = 0; day < years * 365; day++) {
    const date = new Date(LAST_DATE - day * 86_400_000).toISOString().slice(0, 10);
    for (const file of KINDS) {
      const sha = `${symbol}${date}${file}`
        .padEnd(64, '0')
        .replace(/[^0-9a-f]/gi, 'a')
        .slice(0, 64)
        .toLowerCase();
      rows.push({ session_date: date, file, rows: 20_000, bytes: 500_000, sha256: sha, schema_version: 1 });
    }
  }
  return rows;
}

const warehouse = await openWarehouse(dbPath);
const conn = warehouse.connection;
// The synthetic rows are made before the clock starts: the measure is the upsert, not the generator.
const listings = mode === 'upsert' ? symbols.map((symbol) => ({ symbol, rows: manifestRows(symbol) })) : [];
const start = performance.now();
let result: Record<string, number> = {};
if (mode === 'upsert') {
  let rows = 0;
  for (const listing of listings) rows += await upsertManifest(conn, 'bybit', listing.symbol, listing.rows, new Date());
  result = { ms: performance.now() - start, rows };
} else if (mode === 'mark-loaded') {
  // Setup, not measured: the nightly state where every listed file is loaded.
  await conn.run(
    // By name: the ledger gains columns over time (schema_version), and a positional list broke.
    `INSERT INTO sync.files BY NAME SELECT exchange, symbol, session_date, file, sha256, bytes, rows,
       now() AS downloaded_at, now() AS loaded_at, 'loaded' AS status, now() AS updated_at FROM sync.manifest`,
  );
} else if (mode === 'plan' || mode === 'plan-full') {
  const pairs = symbols.map((symbol) => ({ exchange: 'bybit', symbol }));
  const state =
    mode === 'plan'
      ? await readPlanState(conn, { pairs, files: KINDS })
      : { pending: await listManifest(conn), ledger: await listLedger(conn), loadedByPair: new Map<string, number>() };
  const readMs = performance.now() - start;
  const planStart = performance.now();
  const plan = planSync({
    coverage: pairs,
    manifest: state.pending,
    ledger: state.ledger,
    loadedByPair: state.loadedByPair,
    selection: { files: KINDS },
    budget: { creditsRemaining: 200, creditsLimit: 200, reserve: 0 },
    order: 'newest',
  });
  const planMs = performance.now() - planStart;
  result = { ms: performance.now() - start, readMs, planMs, rows: plan.pairs.reduce((sum, pair) => sum + pair.selected, 0), alreadyLoaded: plan.alreadyLoaded };
}
warehouse.close();
process.stdout.write(`${JSON.stringify(result)}\n`);
