// npm run docs:charts — regenerates the README's chart pictures (docs/img/chart-*.png) and measures
// the report: an emulator of 30 days (fixed clock, so the pictures only change when the code does)
// synced for 4 pairs into data/docs/gex.duckdb, one live capture for the term structure, then the
// built CLI draws each chart kind and writes data/docs/report.html, of which Debian's Chromium (when
// the machine has it) takes the top of the page for docs/img/report.png. Run `npm run build` first.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { startEmulator } from '../dist/emulator/index.js';

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
      const child = spawn(process.execPath, [cli, 'sync', ...local, '--exchange', 'deribit,tradfi', '--symbol', 'BTC,ETH,SPY,QQQ', '--quiet'], {
        env,
        stdio: 'inherit',
      });
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
// A narrow range leaves a wall past the bars: it is drawn at the edge with its value and an arrow.
console.log(gexwh('chart', 'profile', ...local, ...btc, '--range', '2%', '--net', '--out', join(img, 'chart-profile-net.png')));
console.log(gexwh('chart', 'oi', ...local, ...btc, '--out', join(img, 'chart-oi.png')));
console.log(gexwh('chart', 'levels', ...local, ...btc, '--out', join(img, 'chart-levels.png')));
console.log(gexwh('chart', 'levels', ...local, '--exchange', 'tradfi', '--symbol', 'SPY', '--sessions', '10', '--out', join(img, 'chart-levels-spy.png')));
console.log(gexwh('chart', 'walls', ...local, ...btc, '--out', join(img, 'chart-walls.png')));
console.log(gexwh('chart', 'netgex', ...local, ...btc, '--out', join(img, 'chart-netgex.png')));
console.log(gexwh('chart', 'term', ...local, '--exchange', 'combined', '--symbol', 'BTC', '--out', join(img, 'chart-term.png')));
const report = join(work, 'report.html');
console.log(gexwh('report', ...local, '--out', report));
console.log(`report for 4 pairs x 30 sessions: ${statSync(report).size} bytes`);
await screenshotReport(report, join(img, 'report.png'));

/** The top of the report as a browser shows it: the header, the contents and the first pair's profile. */
async function screenshotReport(file, out) {
  const chromium = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((path) => existsSync(path));
  if (chromium === undefined) return console.log('no Chromium on this machine: docs/img/report.png left as it was');
  const { default: puppeteer } = await import('puppeteer-core');
  const browser = await puppeteer.launch({ executablePath: chromium, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage();
    await page.setViewport({ width: 1060, height: 1500 });
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    await page.waitForFunction('window.gexwhReady === true');
    await page.screenshot({ path: out });
    console.log(`report screenshot → ${out}`);
  } finally {
    await browser.close();
  }
}
