// The archive write fault the storage-fault tests load into the built CLI (test/helpers/
// archive-write-fault.mjs): it must fail the way the file system does, or those tests would prove nothing.
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { localWriteErrorOf } from '../../src/sync/fetch.js';
import { faultyOpener, parseWriteFault } from '../helpers/archive-write-fault.mjs';

const root = mkdtempSync(join(tmpdir(), 'gexwh-write-fault-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const plainOpen = (path: string) => createWriteStream(path, { flags: 'w' });

async function write(open: (path: string) => Writable, name: string): Promise<NodeJS.ErrnoException | undefined> {
  return pipeline(Readable.from([Buffer.from('abc')]), open(join(root, name))).then(
    () => undefined,
    (error: unknown) => error as NodeJS.ErrnoException,
  );
}

describe('parseWriteFault', () => {
  it('reads CODE and an optional after=N; unset means no fault', () => {
    expect(parseWriteFault(undefined)).toBeUndefined();
    expect(parseWriteFault('')).toBeUndefined();
    expect(parseWriteFault('ENOSPC:after=2')).toEqual({ code: 'ENOSPC', after: 2 });
    expect(parseWriteFault('EROFS')).toEqual({ code: 'EROFS', after: 0 });
  });

  it('refuses a value it does not understand, so a typo cannot silently disable a test', () => {
    expect(() => parseWriteFault('ENOENT')).toThrow(/expected one of ENOSPC/);
    expect(() => parseWriteFault('ENOSPC:after=x')).toThrow(/expected one of ENOSPC/);
  });
});

describe('faultyOpener', () => {
  it('ENOSPC after 2: the first two writes succeed, every later one fails like the file system', async () => {
    const open = faultyOpener({ code: 'ENOSPC', after: 2 }, plainOpen);
    expect(await write(open, 'one')).toBeUndefined();
    expect(await write(open, 'two')).toBeUndefined();
    const error = await write(open, 'three');
    expect(error).toMatchObject({ code: 'ENOSPC', errno: -28, syscall: 'write' });
    expect(error?.message).toBe(`ENOSPC: no space left on device, write '${join(root, 'three')}'`);
    expect(localWriteErrorOf(error)).toBe(error?.message);
    expect(await write(open, 'four')).toMatchObject({ code: 'ENOSPC' }); // the disk stays full
    expect(readFileSync(join(root, 'two'), 'utf8')).toBe('abc');
  });

  it('a read-only archive (EROFS) or a forbidden one (EACCES) fails on open', async () => {
    expect(await write(faultyOpener({ code: 'EROFS', after: 0 }, plainOpen), 'ro')).toMatchObject({
      code: 'EROFS',
      syscall: 'open',
      message: expect.stringMatching(/^EROFS: read-only file system, open/),
    });
    expect(await write(faultyOpener({ code: 'EACCES', after: 0 }, plainOpen), 'forbidden')).toMatchObject({
      code: 'EACCES',
      message: expect.stringMatching(/^EACCES: permission denied, open/),
    });
  });
});
