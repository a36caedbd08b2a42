// "Charged, not received" through the built CLI: the API charges a file link and answers, but the
// process is killed (kill -9) before it reads the answer. The spend log holds only the credits whose
// links arrived; the next run compares `/me`'s credits left then and now (same quota window) and
// records the difference on the killed run as charged, not received, so the run records hold what the
// API counted. The emulator's hold_after_charge fault stops the answer at that moment: no sleeps.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runCliInProcess } from '../helpers/cli.js';
import { gate } from '../helpers/gate.js';
import { startBench, type Bench } from '../helpers/sync.js';

let bench: Bench;
beforeAll(async () => {
  bench = await startBench();
});
afterAll(() => bench.close());

describe('kill -9 while the API holds a charged link answer', () => {
  it('the next run records the unread link as charged, not received; the records equal what the API counted', async () => {
    const key = bench.emulator.keys.pro;
    const env = { GEX_API_KEY: key };
    const args = ['sync', '--db', bench.dbPath, '--archive', bench.archive, '--base-url', bench.emulator.baseUrl, '--exchange', 'deribit', '--symbol', 'BTC'];
    const released = gate();
    let child: { kill(signal: NodeJS.Signals): boolean } | undefined;
    bench.emulator.faults.add({
      match: /\/history\/files\/deribit\/BTC\/2026-03-09\/levels$/,
      action: { kind: 'hold_after_charge', until: released.until, charged: () => child?.kill('SIGKILL') },
    });
    const killed = await runCli([...args, '--files', 'levels', '--concurrency', '1'], { env, onSpawn: (c) => (child = c) });
    released.open();
    expect(killed.signal).toBe('SIGKILL');
    const charged = bench.emulator.counters.credits(key);
    expect(charged).toBe(2); // 2026-03-10's link, read; 2026-03-09's, charged and never read

    const next = await runCliInProcess([...args, '--files', 'levels', '--json'], { env });
    expect(next.code, next.stderr).toBe(0);
    const runs = await bench.query<{ credits: number; lost: number; error: string | null }>(
      `SELECT credits_spent::INT credits, links_lost::INT lost, error FROM sync.runs WHERE command = 'sync' ORDER BY started_at`,
    );
    expect(runs[0]).toMatchObject({ credits: 1, lost: 1 });
    expect(runs[0]!.error).toContain('1 credit(s) charged by the API, not received');
    // Every credit the API counted is on record: the killed run's (spent + lost) and the next run's.
    const recorded = runs.reduce((sum, run) => sum + run.credits + run.lost, 0);
    expect(recorded).toBe(bench.emulator.counters.credits(key));
  }, 120_000);
});
