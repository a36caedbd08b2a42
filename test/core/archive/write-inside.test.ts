// The one write helper, watched through its file-system calls: the bytes are fsynced before the
// rename, the folder after it; a name that must be new is never replaced; a link planted at the final
// name is replaced, never written through; a folder that is a link out is refused before anything
// is created.
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OutsideRootError } from '../../../src/core/errors.js';
import { commitFile, folderInside, nodeWriteIo, placeFileInside, writeFileInside, type WriteIo } from '../../../src/core/archive/write-inside.js';

/** nodeWriteIo with every call written down as `call path`. */
function watched(): { io: WriteIo; calls: string[] } {
  const calls: string[] = [];
  const io: WriteIo = {
    createNew: (path) => (calls.push(`createNew ${path}`), nodeWriteIo.createNew(path)),
    openForSync: (path) => (calls.push(`openForSync ${path}`), nodeWriteIo.openForSync(path)),
    fsync: (handle, path) => (calls.push(`fsync ${path}`), nodeWriteIo.fsync(handle, path)),
    syncFolder: (folder) => (calls.push(`syncFolder ${folder}`), nodeWriteIo.syncFolder(folder)),
    rename: (from, to) => (calls.push(`rename ${from} ${to}`), nodeWriteIo.rename(from, to)),
    link: (from, to) => (calls.push(`link ${from} ${to}`), nodeWriteIo.link(from, to)),
    remove: (path) => (calls.push(`remove ${path}`), nodeWriteIo.remove(path)),
    lstat: (path) => nodeWriteIo.lstat(path),
    realpath: (path) => (calls.push(`realpath ${path}`), nodeWriteIo.realpath(path)),
    mkdir: (path) => (calls.push(`mkdir ${path}`), nodeWriteIo.mkdir(path)),
  };
  return { io, calls };
}

let base: string;
let root: string;
let outside: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'gexwh-write-'));
  root = join(base, 'root');
  outside = join(base, 'outside');
  mkdirSync(root);
  mkdirSync(outside);
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const kinds = (calls: string[]) => calls.map((call) => call.split(' ')[0]);

describe('writeFileInside', () => {
  it('temp created new, written, fsynced, renamed over the name, then the folder fsynced; new folders made and their parents fsynced', async () => {
    const { io, calls } = watched();
    const final = await writeFileInside(root, 'a/b/note.json', '{"x":1}\n', { io });
    expect(final).toBe(join(root, 'a', 'b', 'note.json'));
    expect(readFileSync(final, 'utf8')).toBe('{"x":1}\n');
    const temp = calls.find((c) => c.startsWith('createNew '))!.split(' ')[1]!;
    expect(temp).toMatch(/\/a\/b\/\.note\.json\.[0-9a-f]{12}\.part$/);
    expect(calls.filter((c) => !c.startsWith('realpath'))).toEqual([
      `mkdir ${join(root, 'a')}`,
      `mkdir ${join(root, 'a', 'b')}`,
      `syncFolder ${root}`,
      `syncFolder ${join(root, 'a')}`,
      `createNew ${temp}`,
      `fsync ${temp}`,
      `rename ${temp} ${final}`,
      `syncFolder ${join(root, 'a', 'b')}`,
    ]);
    expect(readdirSync(join(root, 'a', 'b'))).toEqual(['note.json']);
  });

  it('a link planted at the final name is replaced by the file, its target untouched', async () => {
    const victim = join(outside, 'victim.txt');
    writeFileSync(victim, 'mine');
    symlinkSync(victim, join(root, 'views.sql'));
    await writeFileInside(root, 'views.sql', 'select 1;\n');
    expect(readFileSync(victim, 'utf8')).toBe('mine');
    expect(lstatSync(join(root, 'views.sql')).isFile()).toBe(true);
    expect(readFileSync(join(root, 'views.sql'), 'utf8')).toBe('select 1;\n');
  });

  it('exclusive: the name must be new; a planted link (even a dangling one) is an error, nothing written through it, no temp left', async () => {
    const { io, calls } = watched();
    const victim = join(outside, 'victim.txt');
    symlinkSync(victim, join(root, 'x.note.json'));
    await expect(writeFileInside(root, 'x.note.json', 'note', { exclusive: true, io })).rejects.toThrow(OutsideRootError);
    expect(existsSync(victim)).toBe(false);
    expect(kinds(calls)).toContain('link');
    expect(kinds(calls)).not.toContain('rename');
    expect(readdirSync(root)).toEqual(['x.note.json']);
    await writeFileInside(root, 'y.note.json', 'note', { exclusive: true });
    expect(readFileSync(join(root, 'y.note.json'), 'utf8')).toBe('note');
  });

  it('a folder on the way that is a link out is refused before anything is created', async () => {
    symlinkSync(outside, join(root, 'levels'));
    const { io, calls } = watched();
    await expect(writeFileInside(root, 'levels/exchange=bybit/data.parquet', 'x', { io })).rejects.toThrow(
      new RegExp(`${join(root, 'levels')} is a symbolic link to ${outside}, outside ${root}: not followed`),
    );
    expect(kinds(calls).filter((k) => k !== 'realpath')).toEqual([]);
    expect(readdirSync(outside)).toEqual([]);
  });

  it("a link to the root's parent is out too; a link that stays inside is followed", async () => {
    symlinkSync('..', join(root, 'up'));
    await expect(folderInside(root, 'up/x')).rejects.toThrow(OutsideRootError);
    mkdirSync(join(root, 'real'));
    symlinkSync('real', join(root, 'alias'));
    await writeFileInside(root, 'alias/f.txt', 'in');
    expect(readFileSync(join(root, 'real', 'f.txt'), 'utf8')).toBe('in');
  });

  it('a path that climbs out of the root is a programming error', async () => {
    await expect(writeFileInside(root, '../x.txt', 'x')).rejects.toThrow(/climbs out of the root/);
  });
});

describe('placeFileInside and commitFile', () => {
  it('a staged file is fsynced, then renamed into its checked folder, then the folder fsynced', async () => {
    const staged = join(root, '.staging', 'run.tmp');
    mkdirSync(join(root, '.staging'));
    writeFileSync(staged, 'parquet bytes');
    const { io, calls } = watched();
    const final = await placeFileInside(root, staged, 'levels/data.parquet', { io });
    expect(calls.filter((c) => !c.startsWith('realpath'))).toEqual([
      `openForSync ${staged}`,
      `fsync ${staged}`,
      `mkdir ${join(root, 'levels')}`,
      `syncFolder ${root}`,
      `rename ${staged} ${final}`,
      `syncFolder ${join(root, 'levels')}`,
    ]);
    expect(readFileSync(final, 'utf8')).toBe('parquet bytes');
  });

  it('commitFile: a downloaded temp is fsynced before it is renamed over its name, then the folder fsynced', async () => {
    const temp = join(root, '.data.parquet.abc.part');
    writeFileSync(temp, 'downloaded bytes');
    const { io, calls } = watched();
    await commitFile(temp, join(root, 'data.parquet'), { io });
    expect(calls.filter((c) => !c.startsWith('realpath'))).toEqual([
      `openForSync ${temp}`,
      `fsync ${temp}`,
      `rename ${temp} ${join(root, 'data.parquet')}`,
      `syncFolder ${root}`,
    ]);
    expect(readFileSync(join(root, 'data.parquet'), 'utf8')).toBe('downloaded bytes');
  });

  it('a staged file that is a link is not followed to be fsynced', async () => {
    writeFileSync(join(outside, 'real'), 'x');
    symlinkSync(join(outside, 'real'), join(root, 'staged.tmp'));
    await expect(commitFile(join(root, 'staged.tmp'), join(root, 'final'))).rejects.toMatchObject({ code: 'ELOOP' });
  });
});
