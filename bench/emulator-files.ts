// `node dist/bench/emulator-files.js [runs]`: CPU time the emulator spends building the three daily
// files of a session (bybit BTC, default 12 × 120 chains, 12 sessions), median over runs. CPU time
// (process.cpuUsage), not wall time: the figure should not depend on what else the machine runs.
// Each run starts from a fresh model, so every file is built from cold caches; the kinds are built
// in the order a sync asks for them, so the first one pays for the shared chains.
import { createMarketModel } from '../emulator/market/index.js';
import type { FileKind } from '../emulator/market/types.js';
import { median } from './stats.js';

const KINDS: readonly FileKind[] = ['levels', 'strikes_total', 'strikes_by_expiry'];
const SESSIONS = Array.from({ length: 12 }, (_, i) => `2026-06-${String(i + 1).padStart(2, '0')}`);

function cpuMs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
}

/** CPU ms per session for each kind over one fresh model. */
function oneRun(): Record<FileKind, number> {
  const model = createMarketModel({ seed: 42, expirations: 12, strikes: 120, historyStart: '2026-04-18' });
  const spent: Record<FileKind, number> = { levels: 0, strikes_total: 0, strikes_by_expiry: 0 };
  for (const date of SESSIONS) {
    for (const kind of KINDS) {
      const start = process.cpuUsage();
      model.dailyFile('bybit', 'BTC', date, kind, 0);
      spent[kind] += cpuMs(start);
    }
  }
  for (const kind of KINDS) spent[kind] /= SESSIONS.length;
  return spent;
}

function main(): void {
  const runs = Number(process.argv[2] ?? 5);
  oneRun(); // warm-up: JIT, and the shared CSV buffer grown once
  const samples = Array.from({ length: runs }, oneRun);
  const line = (label: string, values: number[]) =>
    `| ${label} | ${median(values).toFixed(0)} | ${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)} |`;
  const rows = KINDS.map((kind) =>
    line(
      kind,
      samples.map((s) => s[kind]),
    ),
  );
  rows.push(
    line(
      'session (3 files)',
      samples.map((s) => s.levels + s.strikes_total + s.strikes_by_expiry),
    ),
  );
  process.stdout.write(
    `CPU ms per session, median of ${runs} runs × ${SESSIONS.length} sessions (bybit BTC, 12 × 120)\n\n| file | median | min–max |\n|---|---|---|\n${rows.join('\n')}\n`,
  );
}

main();
