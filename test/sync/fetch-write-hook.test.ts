// The archive's write path and its test hook (GEXWH_TEST_ARCHIVE_WRITE_ERROR): the hook must fail
// the way the file system does, or the storage-fault tests would prove nothing.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { localWriteErrorOf } from '../../src/sync/fetch.js';

type ArchiveModule = typeof import('../../src/sync/archive-writes.js');

const root = mkdtempSync(join(tmpdir(), 'gexwh-write-hook-'));
let archive: ArchiveModule;
beforeEach(async () => {
  vi.resetModules(); // a fresh module: its count of archive writes starts at 0
  archive = await import('../../src/sync/archive-writes.js');
});
afterEach(() => {
  delete process.env.GEXWH_TEST_ARCHIVE_WRITE_ERROR;
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function write(name: string): Promise<NodeJS.ErrnoException | undefined> {
  return pipeline(Readable.from([Buffer.from('abc')]), archive.createArchiveWriteStream(join(root, name))).then(
    () => undefined,
    (error: unknown) => error as NodeJS.ErrnoException,
  );
}

describe('writeFaultFromEnv', () => {
  it('reads CODE and an optional after=N; unset means no fault', () => {
    expect(archive.writeFaultFromEnv(undefined)).toBeUndefined();
    expect(archive.writeFaultFromEnv('')).toBeUndefined();
    expect(archive.writeFaultFromEnv('ENOSPC:after=2')).toEqual({ code: 'ENOSPC', after: 2 });
    expect(archive.writeFaultFromEnv('EROFS')).toEqual({ code: 'EROFS', after: 0 });
  });

  it('refuses a value it does not understand, so a typo cannot silently disable a test', () => {
    expect(() => archive.writeFaultFromEnv('ENOENT')).toThrow(/expected one of ENOSPC/);
    expect(() => archive.writeFaultFromEnv('ENOSPC:after=x')).toThrow(/expected one of ENOSPC/);
  });
});

describe('createArchiveWriteStream', () => {
  it('writes the file when no fault is set', async () => {
    expect(await write('plain')).toBeUndefined();
    expect(readFileSync(join(root, 'plain'), 'utf8')).toBe('abc');
  });

  it('ENOSPC after 2: the first two writes succeed, every later one fails like the file system', async () => {
    process.env.GEXWH_TEST_ARCHIVE_WRITE_ERROR = 'ENOSPC:after=2';
    expect(await write('one')).toBeUndefined();
    expect(await write('two')).toBeUndefined();
    const error = await write('three');
    expect(error).toMatchObject({ code: 'ENOSPC', errno: -28, syscall: 'write' });
    expect(error?.message).toBe(`ENOSPC: no space left on device, write '${join(root, 'three')}'`);
    expect(localWriteErrorOf(error)).toBe(error?.message);
    expect(await write('four')).toMatchObject({ code: 'ENOSPC' }); // the disk stays full
    expect(readFileSync(join(root, 'two'), 'utf8')).toBe('abc');
  });

  it('a read-only archive (EROFS) or a forbidden one (EACCES) fails on open', async () => {
    process.env.GEXWH_TEST_ARCHIVE_WRITE_ERROR = 'EROFS';
    expect(await write('ro')).toMatchObject({ code: 'EROFS', syscall: 'open', message: expect.stringMatching(/^EROFS: read-only file system, open/) });
    process.env.GEXWH_TEST_ARCHIVE_WRITE_ERROR = 'EACCES';
    expect(await write('forbidden')).toMatchObject({ code: 'EACCES', message: expect.stringMatching(/^EACCES: permission denied, open/) });
  });
});
