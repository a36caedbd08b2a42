// GEXWH_MEMORY_LIMIT and GEXWH_THREADS: DuckDB's memory_limit for small machines (bench scenario 5
// relies on it) and its threads for shared ones (the test suite runs with one per worker).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { memoryLimitFromEnv, openWarehouse, threadsFromEnv } from '../../src/warehouse/open.js';
import { emptyStateCopy } from '../../src/warehouse/snapshot.js';

const saved = { GEXWH_MEMORY_LIMIT: process.env.GEXWH_MEMORY_LIMIT, GEXWH_THREADS: process.env.GEXWH_THREADS };
afterEach(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

describe('memoryLimitFromEnv', () => {
  it('accepts DuckDB sizes, ignores unset or blank, refuses anything else as a usage error', () => {
    expect(memoryLimitFromEnv({})).toBeUndefined();
    expect(memoryLimitFromEnv({ GEXWH_MEMORY_LIMIT: '  ' })).toBeUndefined();
    expect(memoryLimitFromEnv({ GEXWH_MEMORY_LIMIT: '256MB' })).toBe('256MB');
    expect(memoryLimitFromEnv({ GEXWH_MEMORY_LIMIT: '1.5 GiB' })).toBe('1.5 GiB');
    for (const bad of ['256', 'lots', '256MB; DROP TABLE levels', '-1GB']) {
      expect(() => memoryLimitFromEnv({ GEXWH_MEMORY_LIMIT: bad })).toThrow(UsageError);
    }
  });

  it('refuses a size too small for DuckDB to load or verify a file, saying what to set', () => {
    for (const small of ['0B', '1MB', '63MB', '60MiB', '0.05GB']) {
      expect(() => memoryLimitFromEnv({ GEXWH_MEMORY_LIMIT: small })).toThrow(/below the 64MB .* set 256MB or more, or unset it/);
    }
    expect(memoryLimitFromEnv({ GEXWH_MEMORY_LIMIT: '64MB' })).toBe('64MB');
    expect(memoryLimitFromEnv({ GEXWH_MEMORY_LIMIT: '62MiB' })).toBe('62MiB');
  });
});

describe('threadsFromEnv', () => {
  it('accepts a whole number of threads from 1, ignores unset or blank, refuses anything else naming what is allowed', () => {
    expect(threadsFromEnv({})).toBeUndefined();
    expect(threadsFromEnv({ GEXWH_THREADS: ' ' })).toBeUndefined();
    expect(threadsFromEnv({ GEXWH_THREADS: '1' })).toBe('1');
    expect(threadsFromEnv({ GEXWH_THREADS: ' 04 ' })).toBe('4');
    expect(threadsFromEnv({ GEXWH_THREADS: '1024' })).toBe('1024');
    for (const bad of ['0', '-1', '1.5', 'two', '2 threads', '1; SET threads = 64', '1025', '99999999999999999999']) {
      expect(() => threadsFromEnv({ GEXWH_THREADS: bad })).toThrow(UsageError);
      expect(() => threadsFromEnv({ GEXWH_THREADS: bad })).toThrow(`GEXWH_THREADS must be a whole number of threads from 1 to 1024, got "${bad}"`);
    }
  });
});

describe('every DuckDB instance takes GEXWH_THREADS', () => {
  it('the warehouse read-write, read-only and sandboxed, and the in-memory copy a plan reads', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gexwh-threads-'));
    const setting = async ({ connection }: { connection: DuckDBConnection }) =>
      String((await connection.runAndReadAll(`SELECT current_setting('threads') AS v`)).getRowObjectsJS()[0]?.v);
    try {
      const db = join(dir, 'gex.duckdb');
      for (const threads of ['1', '3']) {
        process.env.GEXWH_THREADS = threads;
        for (const options of [{}, { readOnly: true }, { sandbox: {} }]) {
          const warehouse = await openWarehouse(db, options);
          try {
            expect(await setting(warehouse), JSON.stringify(options)).toBe(threads);
          } finally {
            warehouse.close();
          }
        }
        const copy = await emptyStateCopy();
        try {
          expect(await setting(copy)).toBe(threads);
        } finally {
          copy.close();
        }
      }
      // Unset: DuckDB's own default, one per core.
      delete process.env.GEXWH_THREADS;
      const warehouse = await openWarehouse(db);
      try {
        expect(Number(await setting(warehouse))).toBe(availableParallelism());
      } finally {
        warehouse.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a bad value is a usage error before any file is created', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gexwh-threads-'));
    try {
      process.env.GEXWH_THREADS = 'all';
      await expect(openWarehouse(join(dir, 'gex.duckdb'))).rejects.toThrow(UsageError);
      expect(existsSync(join(dir, 'gex.duckdb'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('openWarehouse with GEXWH_MEMORY_LIMIT', () => {
  it('sets DuckDB memory_limit on the instance', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gexwh-memlimit-'));
    try {
      process.env.GEXWH_MEMORY_LIMIT = '300MB';
      const warehouse = await openWarehouse(join(dir, 'gex.duckdb'));
      try {
        const reader = await warehouse.connection.runAndReadAll(`SELECT current_setting('memory_limit') AS v`);
        // DuckDB reports it in MiB: 300 MB = 286.1 MiB.
        expect(String(reader.getRowObjectsJS()[0]?.v)).toBe('286.1 MiB');
      } finally {
        warehouse.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
