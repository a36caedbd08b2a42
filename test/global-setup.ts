// Before any test: build dist/ (the tests import the product as built, and the CLI tests spawn the
// built binary, so a run after an edit of src/ would otherwise test stale code; incremental, a few
// seconds when nothing changed), and give the run a temporary folder of its own, on the RAM disk
// when the machine has room there. Run once per vitest process; workers and the CLI children they
// start inherit TMPDIR and GEXWH_THREADS.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
// Every warehouse a test writes is checkpointed and fsynced on close, every journal file fsynced: on
// a disk those waits are a large part of the suite's time, on a RAM disk none. Crash safety is tested
// by what the product writes and renames, never by pulling power, so the disk adds nothing.
const RAM_DISK = '/dev/shm';
// Room the suite may need at its peak (the 60-day history, the exports), with margin.
const RAM_DISK_ROOM = 4 * 1024 ** 3;

// The workers (one and a half a core) already keep the cores busy: DuckDB's own threads (one per
// core in every instance) only add handing work between threads. One DuckDB thread per instance took
// ~12% less CPU over the sync, reliability and export tests (80 against 94 s in paired runs). A value
// in the environment is kept; test/emulator/sixty-day-sync.test.ts runs DuckDB at its default.
const DUCKDB_THREADS = '1';

export default function setup(): () => void {
  buildFirst();
  process.env.GEXWH_THREADS ??= DUCKDB_THREADS;
  const folder = mkdtempSync(join(testTempParent(), 'gexwh-test-'));
  process.env.TMPDIR = folder;
  return () => rmSync(folder, { recursive: true, force: true });
}

function buildFirst(): void {
  if (process.env.GEXWH_TEST_BUILT === '1') return;
  // The package's own build script (TypeScript 7's tsc -b, then the CLI bundled into dist/cli, the
  // binary users run), so the tests build exactly what `npm run build` does.
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
  process.env.GEXWH_TEST_BUILT = '1';
}

/** GEXWH_TEST_TMPDIR when set; else the RAM disk when it has room; else the system's temporary folder. */
function testTempParent(): string {
  const chosen = process.env.GEXWH_TEST_TMPDIR;
  if (chosen !== undefined && chosen !== '') return chosen;
  return ramDiskRoom() >= RAM_DISK_ROOM ? RAM_DISK : tmpdir();
}

function ramDiskRoom(): number {
  try {
    const stats = statfsSync(RAM_DISK);
    return stats.bavail * stats.bsize;
  } catch {
    return 0;
  }
}
