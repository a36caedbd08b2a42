// `gexwh load` beside no warehouse creates none: it loads into the warehouse a sync made, so a
// mistyped --db or a run from the wrong folder would otherwise start a second, empty warehouse and
// report "0 file(s) loaded" as a success. Exit 2 with the absolute path, what chose it and the config
// search, and what creates a warehouse; nothing is written.
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCliInProcess } from '../helpers/cli.js';

let root: string;
beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'gexwh-load-nowh-')));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

it('exit 2 naming the absolute path and the config search; nothing created', async () => {
  const cwd = join(root, 'empty');
  mkdirSync(cwd);
  const result = await runCliInProcess(['load'], { cwd });
  expect(result.code, result.stderr).toBe(2);
  expect(result.stderr).toContain(`load: no warehouse at ${join(cwd, 'data', 'gex.duckdb')}`);
  expect(result.stderr).toContain(`from: the default data/gex.duckdb, in the working folder ${cwd}`);
  expect(result.stderr).toContain(`config: none found (looked for gexwh.config.json in ${cwd} and every folder above it, up to /)`);
  expect(result.stderr).toContain('gexwh rebuild');
  expect(readdirSync(cwd)).toEqual([]);
});

it('--json: the same error as one JSON object', async () => {
  const cwd = join(root, 'json');
  mkdirSync(cwd);
  const result = await runCliInProcess(['load', '--db', 'typo.duckdb', '--json'], { cwd });
  expect(result.code).toBe(2);
  const { error } = JSON.parse(result.stdout) as { error: { message: string; hint: Record<string, string> } };
  expect(error.message).toContain(`no warehouse at ${join(cwd, 'typo.duckdb')}`);
  expect(error.hint).toMatchObject({ db: join(cwd, 'typo.duckdb'), from: `--db typo.duckdb (relative to the working folder ${cwd})` });
  expect(readdirSync(cwd)).toEqual([]);
});
