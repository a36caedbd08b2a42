// Run in its own process (two DuckDB builds in one process share one set of native symbols): opens
// a warehouse read-only with DuckDB 1.4 (the devDependency alias duckdb14), and, in a second
// in-memory instance, runs an export's views.sql; prints what both answer, as JSON.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { DuckDBInstance } = require('duckdb14');
const [dbPath, viewsPath, ...queries] = process.argv.slice(2);

async function answers(conn) {
  const out = [];
  for (const sql of queries) {
    const reader = await conn.runAndReadAll(`SELECT count(*)::BIGINT::VARCHAR AS n, coalesce(sum(hash(q)), 0)::HUGEINT::VARCHAR AS checksum FROM (${sql}) q`);
    out.push(reader.getRowObjectsJS()[0]);
  }
  return out;
}

const warehouse = await DuckDBInstance.create(dbPath, { access_mode: 'READ_ONLY' });
const wconn = await warehouse.connect();
const version = (await wconn.runAndReadAll('SELECT version() AS v')).getRowObjectsJS()[0].v;
await wconn.run("SET TimeZone = 'UTC'");
const fromWarehouse = await answers(wconn);
const memory = await DuckDBInstance.create(':memory:');
const mconn = await memory.connect();
await mconn.run(readFileSync(viewsPath, 'utf8'));
const fromExport = await answers(mconn);
process.stdout.write(JSON.stringify({ version, fromWarehouse, fromExport }));
