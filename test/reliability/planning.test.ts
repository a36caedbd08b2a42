// Reliability matrix, load: planning over a long history. 5 years × 5 symbols × 3 files (27,375
// manifest rows: the plan's SQL has no paging or batch size that a larger count would cross) with a
// few hundred files not loaded (never downloaded, a rebuilt version, a failed
// attempt). The plan computed in SQL (readPlanState, what a sync runs) must equal the plan from the
// whole manifest and ledger in JS, and pick exactly the files that are not loaded. Time and memory are
// measured by `npm run bench` (scenario 4), not here.
import { describe, expect, it } from 'vitest';
import { planSync, type PlanInput } from '../../src/sync/download-plan.js';
import { listLedger, recordFileStatus } from '../../src/warehouse/ledger.js';
import { listManifest, upsertManifest } from '../../src/warehouse/manifest.js';
import { readPlanState } from '../../src/warehouse/planner-input.js';
import { seededRandom } from '../helpers/random.js';
import { withWarehouse } from '../warehouse/fixtures.js';
import type { FileKind } from '../../src/core/file-kinds.js';
import type { ManifestRow } from '../../src/core/rows.js';

const YEARS = 5;
const SYMBOLS = Array.from({ length: 5 }, (_, i) => `SYM${i}`);
const KINDS: FileKind[] = ['levels', 'strikes_total', 'strikes_by_expiry'];
const LAST_DAY = Date.UTC(2026, 2, 10);

function sha(n: number): string {
  return n.toString(16).padStart(64, '0');
}

function dateOf(daysBack: number): string {
  return new Date(LAST_DAY - daysBack * 86_400_000).toISOString().slice(0, 10);
}

describe('planning a long history', () => {
  it(`plans ${YEARS} years × ${SYMBOLS.length} symbols × 3 files in SQL exactly as from the whole manifest and ledger`, async () => {
    await withWarehouse(async (wh) => {
      const conn = wh.connection;
      let next = 1;
      for (const symbol of SYMBOLS) {
        const rows: ManifestRow[] = [];
        for (let day = 0; day < YEARS * 365; day++) {
          for (const file of KINDS) rows.push({ session_date: dateOf(day), file, rows: 100, bytes: 1000, sha256: sha(next++), schema_version: 1 });
        }
        await upsertManifest(conn, 'bybit', symbol, rows, new Date('2026-03-11T00:00:00Z'));
      }
      // The nightly state: every listed version loaded...
      await conn.run(
        `INSERT INTO sync.files SELECT exchange, symbol, session_date, file, sha256, bytes, rows, NULL, now(), now(), 'loaded', NULL, now(), schema_version
           FROM sync.manifest`,
      );
      // ...but for a seeded few: never downloaded, rebuilt upstream (new sha256), or failed.
      const random = seededRandom(7);
      const pending = new Set<string>();
      for (let i = 0; i < 300; i++) {
        const symbol = SYMBOLS[Math.floor(random() * SYMBOLS.length)]!;
        const date = dateOf(Math.floor(random() * YEARS * 365));
        const file = KINDS[Math.floor(random() * KINDS.length)]!;
        const key = `bybit|${symbol}|${date}|${file}`;
        if (pending.has(key)) continue;
        pending.add(key);
        const where = [symbol, date, file];
        const fate = Math.floor(random() * 3);
        if (fate === 0) {
          await conn.run(`DELETE FROM sync.files WHERE exchange = 'bybit' AND symbol = $1 AND session_date = $2::DATE AND file = $3`, where);
        } else if (fate === 1) {
          await conn.run(`UPDATE sync.manifest SET sha256 = $4 WHERE exchange = 'bybit' AND symbol = $1 AND session_date = $2::DATE AND file = $3`, [
            ...where,
            sha(next++),
          ]);
        } else {
          await conn.run(`DELETE FROM sync.files WHERE exchange = 'bybit' AND symbol = $1 AND session_date = $2::DATE AND file = $3`, where);
          const [row] = (
            await conn.runAndReadAll(`SELECT sha256 FROM sync.manifest WHERE symbol = $1 AND session_date = $2::DATE AND file = $3`, where)
          ).getRowObjectsJS();
          await recordFileStatus(conn, { exchange: 'bybit', symbol, sessionDate: date, file, sha256: String(row!.sha256) }, 'failed_verify', 'bad sha256');
        }
      }

      const pairs = SYMBOLS.map((symbol) => ({ exchange: 'bybit', symbol }));
      const common: Omit<PlanInput, 'manifest' | 'ledger'> = {
        coverage: pairs,
        selection: { files: KINDS },
        budget: { creditsRemaining: 200, creditsLimit: 200, reserve: 0 },
        order: 'newest',
      };
      const state = await readPlanState(conn, { pairs, files: KINDS });
      const fromSql = planSync({ ...common, manifest: state.pending, ledger: state.ledger, loadedByPair: state.loadedByPair });
      const manifest = await listManifest(conn);
      expect(manifest).toHaveLength(YEARS * 365 * SYMBOLS.length * 3);
      const full = planSync({ ...common, manifest, ledger: await listLedger(conn) });

      expect(fromSql).toEqual(full);
      const planned = [...fromSql.toDownload, ...fromSql.deferred].map((f) => `${f.exchange}|${f.symbol}|${f.sessionDate}|${f.file}`);
      expect(new Set(planned)).toEqual(pending);
      expect(fromSql.toDownload).toHaveLength(200);
      expect(fromSql.deferred).toHaveLength(pending.size - 200);
      expect(fromSql.alreadyLoaded).toBe(manifest.length - pending.size);
      // Newest first across the pairs: no deferred file is newer than a planned one.
      const oldestPlanned = fromSql.toDownload.map((f) => f.sessionDate).sort()[0]!;
      expect(fromSql.deferred.every((f) => f.sessionDate <= oldestPlanned)).toBe(true);
      // Only the pending rows crossed into JS.
      expect(state.pending).toHaveLength(pending.size);
    });
  }, 120_000);
});
