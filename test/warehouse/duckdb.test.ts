import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { duckdb } from '../../src/warehouse/duckdb.js';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sourceFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

describe('duckdb module', () => {
  it('loads the package with require, values included', async () => {
    const instance = await duckdb.DuckDBInstance.create(':memory:');
    const conn = await instance.connect();
    const reader = await conn.runAndReadAll('SELECT 41 + 1 AS answer');
    expect(reader.getRowObjects()).toEqual([{ answer: 42 }]);
    conn.closeSync();
    instance.closeSync();
  });

  it('is the only module that imports values from @duckdb/node-api (an ESM import costs ~100 ms of every start)', () => {
    const valueImports = sourceFiles('src')
      .filter((file) => !file.endsWith(join('warehouse', 'duckdb.ts')))
      .filter((file) => /^import\s+(?!type\b)[^;]*from '@duckdb\/node-api'/m.test(readFileSync(file, 'utf8')));
    expect(valueImports).toEqual([]);
  });
});
