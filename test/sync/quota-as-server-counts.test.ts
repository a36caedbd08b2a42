// Quotas as the server counts them: every answered request of a quota-counted endpoint counts toward
// --max-requests (the spec does not say a 4xx is free), or the fall of the server's remaining when
// that is more; a renewed link takes its credit from the run's budget, else the file is deferred.
import { afterEach, describe, expect, it } from 'vitest';
import { startBench, type Bench } from '../helpers/sync.js';
import { ONE_PAIR, recordedCredits, syncVia } from '../helpers/reliability.js';

let bench: Bench | undefined;
afterEach(async () => {
  await bench?.close();
  bench = undefined;
});

describe('requests', () => {
  it('a 4xx answer counts, as an emulator charging failed requests counts it', async () => {
    bench = await startBench({ chargeFailedRequests: true, symbols: ['BTC'] });
    const { emulator } = bench;
    const client = bench.client();
    for (let i = 0; i < 3; i++) {
      // start on or after end: 400 invalid_param, a request the server may charge.
      await expect(client.historyFiles('deribit', 'BTC', { start: '2026-03-10', end: '2026-03-01' })).rejects.toMatchObject({ status: 400 });
    }
    expect(emulator.counters.requests(emulator.keys.pro)).toBe(3);
    expect(client.spent().requests).toBe(3);
  });

  it('the fall of X-RateLimit-Remaining counts when it is more (another client spends the same quota)', async () => {
    bench = await startBench({ symbols: ['BTC'] });
    const mine = bench.client();
    const other = bench.client();
    await mine.me(); // free: the server's remaining, first seen
    for (let i = 0; i < 4; i++) await other.historyFiles('deribit', 'BTC');
    await mine.historyFiles('deribit', 'BTC');
    expect(mine.spent().requests).toBe(5);
    expect(other.spent().requests).toBe(4);
  });

  it('--max-requests 1: a manifest answered 400 spends it, the next pair is not listed', async () => {
    bench = await startBench({ symbols: ['BTC', 'SPY'] });
    const { emulator } = bench;
    emulator.faults.add({
      where: 'api',
      match: /^\/api\/v1\/history\/files\/deribit\/BTC(\?|$)/,
      times: 1,
      action: { kind: 'status', status: 400, error: 'invalid_param' },
    });
    const run = await syncVia(bench, { exchange: ['deribit', 'tradfi'], symbol: ['BTC', 'SPY'], maxRequests: 1 }, { sync: { dryRun: true } });
    expect(run.ok, String(!run.ok && run.error)).toBe(true);
    expect(emulator.counters.hits(/^\/api\/v1\/history\/files\/tradfi\/SPY/)).toBe(0);
    expect(run.ok && run.summary.requestsSpent).toBe(1);
  });
});

describe('a renewed link', () => {
  const ONE_FILE = /2026-03-10\/strikes_total/;

  async function expiredOnce(raw: Record<string, unknown>, quota?: { creditsUsed: number }) {
    bench = await startBench({ symbols: ['BTC'] });
    const { emulator } = bench;
    if (quota) emulator.setQuota(emulator.keys.pro, quota);
    emulator.faults.add({ where: 'api', match: ONE_FILE, times: 1, action: { kind: 'expire_link' } });
    // One session: its three files.
    const run = await syncVia(bench, { ...ONE_PAIR, since: '2026-03-10', until: '2026-03-10', ...raw });
    if (!run.ok) throw run.error;
    return { run, emulator, bench };
  }

  it('with no credit left over under --max-credits: the file is deferred (max-credits), never bought outside it', async () => {
    const { run, emulator, bench: b } = await expiredOnce({ maxCredits: 3 });
    expect(emulator.counters.credits(emulator.keys.pro)).toBe(3);
    expect(run.summary.creditsSpent).toBe(3);
    expect(await recordedCredits(b)).toBe(3);
    expect(run.summary.filesLoaded).toBe(2);
    expect(run.summary.filesDeferred).toBe(1);
    expect(run.summary.deferredBy).toEqual(['max-credits']);
    expect(run.summary.outcome).toBe('ok');
  });

  it('the day remaining minus --reserve-credits is the same budget: deferred (reserve-credits)', async () => {
    // 200 a day, 195 used: 5 remain, 2 reserved, 3 for the plan's 3 files.
    const { run, emulator } = await expiredOnce({ reserveCredits: 2 }, { creditsUsed: 195 });
    expect(emulator.counters.credits(emulator.keys.pro)).toBe(3);
    expect(run.summary.filesDeferred).toBe(1);
    expect(run.summary.deferredBy).toEqual(['reserve-credits']);
  });

  it('with a credit left over: renewed (one more credit, counted) and every file loaded', async () => {
    const { run, emulator } = await expiredOnce({ maxCredits: 4 });
    expect(emulator.counters.credits(emulator.keys.pro)).toBe(4);
    expect(run.summary.creditsSpent).toBe(4);
    expect(run.summary.filesDeferred).toBe(0);
    expect(run.summary.filesLoaded).toBe(3);
  });
});
