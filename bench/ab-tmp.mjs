// A/B: the migration's definitions as TEMP objects named *_new on a read-only connection.
import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';
const [db, mig, qfile, mode = 'time'] = process.argv.slice(2);
const inst = await DuckDBInstance.create(db, { access_mode: 'READ_ONLY' }); const c = await inst.connect();
await c.run(`SET TimeZone='UTC'`);
let sql = readFileSync(mig, 'utf8').replace(/^--.*$/mg, '');
const names = [...sql.matchAll(/CREATE OR REPLACE (?:VIEW|MACRO) (\w+)/g)].map(m => m[1]);
for (const n of names) sql = sql.replaceAll(new RegExp(`\\b${n}\\b(?!_new)`, 'g'), `${n}_new`);
sql = sql.replaceAll('CREATE OR REPLACE VIEW', 'CREATE OR REPLACE TEMP VIEW').replaceAll('CREATE OR REPLACE MACRO', 'CREATE OR REPLACE TEMP MACRO');
await c.run(sql);
const fp = async (q) => JSON.stringify((await c.runAndReadAll(`SELECT count(*)::VARCHAR n, sum(hash(q::VARCHAR))::VARCHAR h FROM (${q}) q`)).getRowsJS());
for (const block of readFileSync(qfile, 'utf8').split(';;').map(s => s.trim()).filter(Boolean)) {
  const [setup, q] = block.includes('@@') ? block.split('@@') : ['', block];
  if (setup.trim()) await c.run(setup);
  const qn = names.reduce((s, n) => s.replaceAll(new RegExp(`\\b${n}\\b`, 'g'), `${n}_new`), q);
  const a = await fp(q), b = await fp(qn);
  console.log(a === b ? 'SAME' : `DIFF ${a} ${b}`, q.replace(/\s+/g, ' ').slice(0, 120));
  if (mode === 'explain') { console.log((await c.runAndReadAll('EXPLAIN ANALYZE ' + qn)).getRows()[0][1]); continue; }
  const t = {};
  for (const [k, s] of [['old', q], ['new', qn], ['old', q], ['new', qn]]) { await c.runAndReadAll(s); }
  for (let r = 0; r < 7; r++) for (const [k, s] of (r % 2 ? [['old', q], ['new', qn]] : [['new', qn], ['old', q]])) { const t0 = performance.now(); for (let i = 0; i < 3; i++) await c.runAndReadAll(s); (t[k] ??= []).push((performance.now() - t0) / 3); }
  const med = (a) => a.sort((x, y) => x - y)[3];
  console.log(`   old ${med(t.old).toFixed(1)} ms   new ${med(t.new).toFixed(1)} ms`);
}
