// A batch of files loads in one statement: its progress comes from DuckDB's own progress of the
// statement running, so a big batch does not show as one jump.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import { withinBatch } from '../../src/warehouse/loader.js';

afterEach(() => vi.useRealTimers());

describe('progress within a batch', () => {
  it("turns the statement's percentage into files done: rising, never the whole batch, never back", async () => {
    vi.useFakeTimers();
    let percentage = -1;
    const conn = {
      get progress() {
        return { percentage };
      },
    } as unknown as DuckDBConnection;
    const told: number[] = [];
    let finish!: () => void;
    const running = withinBatch(
      conn,
      32,
      (done) => told.push(done),
      () => new Promise<void>((resolve) => (finish = resolve)),
    );
    for (const value of [-1, 0, 10, 50, 30, 99, 100]) {
      percentage = value;
      await vi.advanceTimersByTimeAsync(250);
    }
    finish();
    await running;
    // 10% of 32 files = 3, 50% = 16; a later statement's 30% is not a step back; 99% and 100% stop at 31.
    expect(told).toEqual([3, 16, 31]);
    told.length = 0;
    await vi.advanceTimersByTimeAsync(1000);
    expect(told).toEqual([]); // nothing after the batch
  });
});
