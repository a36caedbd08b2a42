// npm run docs:charts — regenerates the README's chart pictures (docs/img/chart-*.png) and measures
// the report: an emulator of 30 days (fixed clock, so the pictures only change when the code does)
// synced for 4 pairs into data/docs/gex.duckdb, one live capture for the term structure, then the
// built CLI draws each chart kind and writes data/docs/report.html. Run `npm run build` first.
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { startEmulator } from '../dist/src/emulator/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = join(root, 'dist/src/cli/main.js');
const work = join(root, 'data/docs');
const img = join(root, 'docs/img');
const NOW = '2026-11-20T15:00:00Z';

rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
mkdirSync(img, { recursive: true });

const emulator = await startEmulator({ days: 30, now: NOW, symbols: ['BTC', 'ETH', 'SPY', 'QQQ'], expirations: 6, strikes: 40 });
const env = { ...process.env, GEX_BASE_URL: emulator.baseUrl, GEX_API_KEY: emulator.keys.admin };
const local = ['--db', join(work, 'gex.duckdb'), '--archive', join(work, 'raw')];

function gexwh(...args) {
  const run = spawnSync(process.execPath, [cli, ...args], { env, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`gexwh ${args.join(' ')} failed (${run.status}): ${run.stderr}`);
  return run.stdout.trim();
}

try {
  // spawnSync blocks this process, so the emulator (in this process) could not answer: run it async.
  await new Promise((resolve, reject) => {
    import('node:child_process').then(({ spawn }) => {
      const child = spawn(process.execPath, [cli, 'sync', ...local, '--exchange', 'deribit,tradfi', '--symbol', 'BTC,ETH,SPY,QQQ', '--quiet'], { env, stdio: 'inherit' });
      child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`sync exited ${code}`))));
    });
  });
  await new Promise((resolve, reject) => {
    import('node:child_process').then(({ spawn }) => {
      const child = spawn(process.execPath, [cli, 'capture', ...local, '--symbol', 'BTC', '--quiet'], { env, stdio: 'inherit' });
      child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`capture exited ${code}`))));
    });
  });
} finally {
  await emulator.close();
}

const btc = ['--exchange', 'deribit', '--symbol', 'BTC'];
console.log(gexwh('chart', 'profile', ...local, ...btc, '--out', join(img, 'chart-profile.png')));
console.log(gexwh('chart', 'levels', ...local, ...btc, '--out', join(img, 'chart-levels.png')));
console.log(gexwh('chart', 'walls', ...local, ...btc, '--out', join(img, 'chart-walls.png')));
console.log(gexwh('chart', 'term', ...local, '--exchange', 'combined', '--symbol', 'BTC', '--out', join(img, 'chart-term.png')));
const report = join(work, 'report.html');
console.log(gexwh('report', ...local, '--out', report));
console.log(`report for 4 pairs x 30 sessions: ${statSync(report).size} bytes`);
