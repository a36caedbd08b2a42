// GEXWH_MEMORY_LIMIT: DuckDB's memory_limit for small machines (bench scenario 5 relies on it).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { memoryLimitFromEnv, openWarehouse } from '../../src/warehouse/open.js';

const saved = process.env.GEXWH_MEMORY_LIMIT;
afterEach(() => {
  if (saved === undefined) delete process.env.GEXWH_MEMORY_LIMIT;
  else process.env.GEXWH_MEMORY_LIMIT = saved;
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
