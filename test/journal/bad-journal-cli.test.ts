// The reproductions of a hostile journal through the built CLI: pending.json as a FIFO (status and
// load used to block forever, deaf to SIGTERM), as a link to /dev/zero (load, sync and status exited 1
// "Invalid string length" every night), as a link out of the archive (10 characters of its target
// were printed). Each now answers at once, names the file, and never stops the sync of new files.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { legacyJournalPath } from '../../src/journal/journal.js';
import { runCli, runCliInProcess } from '../helpers/cli.js';
import { startBench, type Bench } from '../helpers/sync.js';

let bench: Bench;
let local: string[];
beforeAll(async () => {
  bench = await startBench();
  local = ['--db', bench.dbPath, '--archive', bench.archive];
});
afterAll(() => bench.close());

function plantJournal(plant: (path: string) => void): string {
  const path = legacyJournalPath(bench.archive);
  rmSync(join(bench.archive, '_journal'), { recursive: true, force: true });
  mkdirSync(join(bench.archive, '_journal'), { recursive: true });
  plant(path);
  return path;
}

function setAside(): string[] {
  return readdirSync(join(bench.archive, '_journal')).filter((name) => name.startsWith('pending.json.unreadable-'));
}

const offline = { env: { GEX_BASE_URL: 'http://127.0.0.1:9' } };

describe('a journal that is a link to /dev/zero', () => {
  it('never stops the sync of new files; the journal is named and set aside', async () => {
    const path = plantJournal((p) => symlinkSync('/dev/zero', p));
    const sync = await runCliInProcess(['sync', ...local, '--exchange', 'deribit', '--symbol', 'BTC', '--base-url', bench.emulator.baseUrl, '--json'], {
      env: { GEX_API_KEY: bench.emulator.keys.pro },
    });
    expect(sync.code).toBe(0);
    const summary = JSON.parse(sync.stdout) as { outcome: string; warnings: string[] };
    expect(summary).toMatchObject({ outcome: 'ok', files_loaded: 9 });
    expect(summary.warnings.join('\n')).toContain(`${path} is a symbolic link, not a file gexwh wrote: it is not followed`);
    expect(setAside()).toHaveLength(1);
  });

  it('load exits 2 naming the file; status answers and names it', async () => {
    const path = plantJournal((p) => symlinkSync('/dev/zero', p));
    const status = await runCliInProcess(['status', ...local], offline);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`journal: the journal ${path} is a symbolic link`);
    const load = await runCliInProcess(['load', ...local]);
    expect(load.code).toBe(2);
    expect(load.stderr).toContain(`load: ${path} is a symbolic link, not a file gexwh wrote: it is not followed`);
    // Set aside by the load: the next one is clean.
    expect(setAside()).toHaveLength(1);
    expect((await runCliInProcess(['load', ...local])).code).toBe(0);
  });
});

describe('a journal that is a link out of the archive', () => {
  it('no byte of the target is shown', async () => {
    const secret = join(bench.dir, 'secret.txt');
    writeFileSync(secret, 'root:x:0:0:TOPSECRET');
    plantJournal((p) => symlinkSync(secret, p));
    for (const args of [
      ['status', ...local],
      ['load', ...local, '--json'],
    ]) {
      const result = await runCliInProcess(args, offline);
      expect(`${result.stdout}${result.stderr}`).not.toMatch(/root:x|TOPSECRET/);
    }
  });
});

describe('a journal that is a FIFO (through the built CLI)', () => {
  it('status and load answer at once: status exit 0 naming it, load exit 2 naming it', async () => {
    const path = plantJournal((p) => execFileSync('mkfifo', [p]));
    const status = await runCli(['status', ...local], offline);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`journal: the journal ${path} is a FIFO (named pipe), not a regular file: it is not read`);
    const load = await runCli(['load', ...local]);
    expect(load.stderr).toContain(`${path} is a FIFO (named pipe), not a regular file`);
    expect(load.code).toBe(2);
  }, 60_000);
});

describe('a journal bigger than any journal', () => {
  it('load exits 2 naming the file and its size (a sparse file: no disk used)', async () => {
    const path = plantJournal((p) => {
      writeFileSync(p, '');
      execFileSync('truncate', ['-s', '600M', p]);
    });
    const load = await runCliInProcess(['load', ...local]);
    expect(load.code).toBe(2);
    expect(load.stderr).toContain(`${path} holds ${600 * 1024 * 1024} bytes, more than a journal can`);
  });
});
