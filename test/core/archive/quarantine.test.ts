// The quarantine note is a new file in the archive: a link planted at its name (the name is the
// file's name and the UTC time, easy to guess) is never written through, and a folder of the
// quarantine that is a link out is refused. Before, the note overwrote the link's target.
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { quarantineFile } from '../../../src/core/archive/quarantine.js';

const REL = join('deribit', 'BTC', '2026-03-10_levels.csv.gz');
const AT = new Date('2026-03-11T14:07:05.123Z');
const NOTE = { reason: 'sha256 x, the manifest says y', expectedSha256: 'y', foundSha256: 'x', foundBytes: 3, command: 'test' };

let base: string;
let root: string;
let outside: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'gexwh-quarantine-'));
  root = join(base, 'raw');
  outside = join(base, 'outside');
  mkdirSync(join(root, 'deribit', 'BTC'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(root, REL), 'bad');
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

describe('the quarantine note', () => {
  it('a link planted at the note name is left alone: the file and its note take the next free name, the outside file untouched', async () => {
    const victim = join(outside, 'victim');
    writeFileSync(victim, 'theirs');
    const folder = join(root, '_quarantine', 'deribit', 'BTC');
    mkdirSync(folder, { recursive: true });
    const planted = join(folder, '2026-03-10_levels.csv.gz.20260311T140705Z.note.json');
    symlinkSync(victim, planted);
    const moved = await quarantineFile(root, REL, NOTE, AT);
    expect(readFileSync(victim, 'utf8')).toBe('theirs');
    expect(lstatSync(planted).isSymbolicLink()).toBe(true);
    expect(moved).toBe(join(folder, '2026-03-10_levels.csv.gz.20260311T140705Z-2'));
    expect(readFileSync(moved!, 'utf8')).toBe('bad');
    expect(JSON.parse(readFileSync(`${moved}.note.json`, 'utf8'))).toMatchObject({ file: REL, moved_to: moved, reason: NOTE.reason });
    expect(lstatSync(`${moved}.note.json`).isFile()).toBe(true);
  });

  it('a dangling link at the note name is not followed to create a file outside', async () => {
    const victim = join(outside, 'created-by-gexwh');
    const folder = join(root, '_quarantine', 'deribit', 'BTC');
    mkdirSync(folder, { recursive: true });
    symlinkSync(victim, join(folder, '2026-03-10_levels.csv.gz.20260311T140705Z.note.json'));
    await quarantineFile(root, REL, NOTE, AT);
    expect(existsSync(victim)).toBe(false);
  });

  it('a quarantine folder that is a link out (deep in it, too) is refused: nothing moved, nothing written outside', async () => {
    mkdirSync(join(root, '_quarantine', 'deribit'), { recursive: true });
    symlinkSync(outside, join(root, '_quarantine', 'deribit', 'BTC'));
    await expect(quarantineFile(root, REL, NOTE, AT)).rejects.toThrow(/is a symbolic link to .*outside/);
    expect(readFileSync(join(root, REL), 'utf8')).toBe('bad');
    expect(existsSync(join(outside, '2026-03-10_levels.csv.gz.20260311T140705Z'))).toBe(false);
  });
});
