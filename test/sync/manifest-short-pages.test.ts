// The spec caps a manifest page at "at most 400 rows"; it never says a page holding fewer is the last.
// A server whose pages are smaller must still have its whole manifest listed, and a normal server's
// incremental listing must cost no more than before.
import { afterEach, describe, expect, it } from 'vitest';
import { startBench, type Bench } from '../helpers/sync.js';
import { ONE_PAIR, syncVia } from '../helpers/reliability.js';

let bench: Bench | undefined;
afterEach(async () => {
  await bench?.close();
  bench = undefined;
});

const MANIFEST = /^\/api\/v1\/history\/files\/deribit\/BTC(\?|$)/;

describe('manifest pages shorter than 400 rows', () => {
  it('a server answering 10 rows a page: every session listed and bought, and a rerun lists one page', async () => {
    bench = await startBench({ symbols: ['BTC'], days: 6, manifestPageRows: 10 });
    const { emulator } = bench;
    const run = await syncVia(bench, ONE_PAIR);
    expect(run.ok, String(!run.ok && run.error)).toBe(true);
    if (!run.ok) return;
    // 2026-03-05 .. 2026-03-10 completed: six sessions, 18 files, listed over several pages.
    const sessions = await bench.query<{ n: bigint }>(`SELECT count(DISTINCT session_date) AS n FROM sync.manifest WHERE exchange = 'deribit'`);
    expect(Number(sessions[0]!.n)).toBe(6);
    expect(run.summary.filesLoaded).toBe(18);
    expect(emulator.counters.hits(MANIFEST)).toBeGreaterThan(1);

    // A new session: the incremental listing starts at the newest stored session and stops there.
    emulator.clock.advance(24 * 3600 * 1000);
    const before = emulator.counters.hits(MANIFEST);
    const next = await syncVia(bench, ONE_PAIR);
    expect(next.ok, String(!next.ok && next.error)).toBe(true);
    expect(emulator.counters.hits(MANIFEST) - before).toBe(1);
    expect(next.ok && next.summary.filesLoaded).toBe(3);
  });

  it('a normal server (400 a page): a first listing is still one request', async () => {
    bench = await startBench({ symbols: ['BTC'], days: 6 });
    const run = await syncVia(bench, ONE_PAIR, { sync: { dryRun: true } });
    expect(run.ok, String(!run.ok && run.error)).toBe(true);
    expect(bench.emulator.counters.hits(MANIFEST)).toBe(1);
  });
});
