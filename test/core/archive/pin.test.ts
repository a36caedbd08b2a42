// The archive's read rule (confine.ts) and the pin that makes the bytes hashed the bytes loaded (pin.ts).
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import {
  constants,
  mkdirSync,
  openSync,
  mkdtempSync,
  promises as fsPromises,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { setTimeout as delay } from 'node:timers/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { locateInArchive } from '../../../src/core/archive/confine.js';
import { ARCHIVED_MAX_BYTES, defaultPinMode, hashArchived, pinArchived, type PinMode } from '../../../src/core/archive/pin.js';
import { quarantineFile } from '../../../src/core/archive/quarantine.js';

let dir: string;
let root: string;
let outside: string;
const REL = 'deribit/BTC/2026-03-10_levels.csv.gz';
const sha = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gexwh-pin-'));
  root = join(dir, 'raw');
  outside = join(dir, 'outside');
  mkdirSync(join(root, 'deribit', 'BTC'), { recursive: true });
  mkdirSync(outside);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('locateInArchive', () => {
  it('follows links that stay inside the archive, refuses those that leave it, names what is missing', async () => {
    writeFileSync(join(root, 'deribit', 'BTC', 'real.csv.gz'), 'x');
    symlinkSync(join(root, 'deribit', 'BTC', 'real.csv.gz'), join(root, REL));
    expect(await locateInArchive(root, REL)).toMatchObject({ kind: 'found', real: join(root, 'deribit', 'BTC', 'real.csv.gz') });

    rmSync(join(root, REL));
    writeFileSync(join(outside, 'x.csv.gz'), 'x');
    symlinkSync(join(outside, 'x.csv.gz'), join(root, REL));
    const refused = await locateInArchive(root, REL);
    expect(refused).toMatchObject({ kind: 'refused', path: join(root, REL) });
    expect(refused.kind === 'refused' && refused.reason).toBe(
      `${join(root, REL)} is a symbolic link (or lies under one) to ${join(outside, 'x.csv.gz')}, outside the archive ${root}: not followed`,
    );

    // A folder above the file that is a link out of the archive is refused the same way.
    rmSync(join(root, 'deribit', 'BTC'), { recursive: true });
    mkdirSync(join(outside, 'BTC'));
    writeFileSync(join(outside, 'BTC', '2026-03-10_levels.csv.gz'), 'x');
    symlinkSync(join(outside, 'BTC'), join(root, 'deribit', 'BTC'));
    expect((await locateInArchive(root, REL)).kind).toBe('refused');
    expect(await locateInArchive(root, 'deribit/BTC/none.csv.gz')).toEqual({ kind: 'missing', path: join(root, 'deribit/BTC/none.csv.gz') });
    expect(await locateInArchive(join(dir, 'nowhere'), REL)).toMatchObject({ kind: 'missing' });
  });

  it('a root that is itself a link is the archive: files under it are inside', async () => {
    writeFileSync(join(root, REL), 'x');
    symlinkSync(root, join(dir, 'alias'));
    expect(await locateInArchive(join(dir, 'alias'), REL)).toMatchObject({ kind: 'found', real: join(root, REL) });
  });
});

describe.each(['descriptor', 'copy'] as PinMode[])('pinArchived (%s)', (mode) => {
  it('hashes the file and keeps what it hashed readable, whatever is renamed over its name afterwards', async () => {
    const path = join(root, REL);
    writeFileSync(path, 'the paid bytes');
    const pinned = await pinArchived(root, REL, mode);
    if (pinned.kind !== 'pinned') throw new Error(pinned.kind);
    try {
      expect(pinned.file).toMatchObject({ path, sha256: sha('the paid bytes'), bytes: 14 });
      // The swap an attacker would make between the hash and the load.
      writeFileSync(join(root, 'deribit', 'BTC', 'evil'), 'other bytes!!');
      renameSync(join(root, 'deribit', 'BTC', 'evil'), path);
      expect(readFileSync(pinned.file.readPath, 'utf8')).toBe('the paid bytes');
      if (mode === 'copy') expect(pinned.file.readPath.startsWith(tmpdir())).toBe(true);
    } finally {
      await pinned.file.release();
    }
    await pinned.file.release(); // idempotent
  });

  it('refuses a link out of the archive and a folder, and says what is missing, without opening them', async () => {
    writeFileSync(join(outside, 'x'), 'x');
    symlinkSync(join(outside, 'x'), join(root, REL));
    expect((await pinArchived(root, REL, mode)).kind).toBe('refused');
    rmSync(join(root, REL));
    mkdirSync(join(root, REL));
    expect(await pinArchived(root, REL, mode)).toEqual({
      kind: 'unreadable',
      path: join(root, REL),
      reason: `${join(root, REL)} is a folder, not a regular file: not read`,
    });
    expect((await pinArchived(root, 'deribit/BTC/none.csv.gz', mode)).kind).toBe('missing');
  });

  it.runIf(process.platform !== 'win32')('refuses a FIFO and a socket at the name at once, never waiting for a writer', async () => {
    const path = join(root, REL);
    execFileSync('mkfifo', [path]);
    // Before, open() blocked in a libuv thread until a writer came: verify and rebuild hung for good.
    const outcome = await Promise.race([pinArchived(root, REL, mode), delay(3000).then(() => 'hung' as const)]);
    if (outcome === 'hung') openSync(path, constants.O_WRONLY | constants.O_NONBLOCK); // let the blocked open go
    // Unreadable, not `refused`: a refusal is read as a link out of the archive (outside_archive).
    expect(outcome).toMatchObject({ kind: 'unreadable', reason: `${path} is a FIFO (named pipe), not a regular file: not read` });
    rmSync(path);
    const server = createServer().listen(path);
    await once(server, 'listening');
    try {
      expect(await pinArchived(root, REL, mode)).toMatchObject({ kind: 'unreadable', reason: `${path} is a socket, not a regular file: not read` });
    } finally {
      server.close();
    }
  });
});

describe('hashArchived', () => {
  it('is the digest of a file read inside the archive only', async () => {
    writeFileSync(join(root, REL), 'abc');
    expect(await hashArchived(root, REL)).toEqual({ kind: 'hashed', path: join(root, REL), sha256: sha('abc'), bytes: 3 });
    expect(['descriptor', 'copy']).toContain(defaultPinMode());
  });
});

describe('quarantineFile', () => {
  it("moves the entry (not a link's target) under _quarantine with a note, never over an earlier one", async () => {
    const at = new Date('2026-03-11T14:07:05.123Z');
    const note = { reason: 'sha256 x, the manifest says y', expectedSha256: 'y', foundSha256: 'x', foundBytes: 3, command: 'test' };
    writeFileSync(join(root, REL), 'bad');
    const first = await quarantineFile(root, REL, note, at);
    expect(first).toBe(join(root, '_quarantine', 'deribit', 'BTC', '2026-03-10_levels.csv.gz.20260311T140705Z'));
    expect(readFileSync(first!, 'utf8')).toBe('bad');
    expect(JSON.parse(readFileSync(`${first}.note.json`, 'utf8'))).toEqual({
      file: REL,
      moved_to: first,
      at: at.toISOString(),
      reason: note.reason,
      expected_sha256: 'y',
      found_sha256: 'x',
      found_bytes: 3,
      command: 'test',
    });
    writeFileSync(join(outside, 'target'), 'theirs');
    symlinkSync(join(outside, 'target'), join(root, REL));
    const second = await quarantineFile(root, REL, note, at);
    expect(second).toBe(`${first}-2`);
    expect(readFileSync(join(outside, 'target'), 'utf8')).toBe('theirs'); // the link moved, its target untouched
    expect(await quarantineFile(root, REL, note, at)).toBeUndefined(); // gone already
  });
});

describe('quarantineFile beside a _quarantine that is a link out of the archive', () => {
  it('moves nothing out of the archive: it refuses, and the file stays where it is', async () => {
    writeFileSync(join(root, REL), 'bad');
    symlinkSync(outside, join(root, '_quarantine'));
    const note = { reason: 'x', expectedSha256: null, foundSha256: 'x', foundBytes: 3, command: 'test' };
    await expect(quarantineFile(root, REL, note)).rejects.toThrow(/is a symbolic link to .*, outside .*: not followed/);
    expect(readFileSync(join(root, REL), 'utf8')).toBe('bad');
    expect(readdirSync(outside)).toEqual([]);
  });
});

describe('a file larger than it may be', () => {
  const GIB2 = 2 * 1024 ** 3;

  /** Counts the reads of every FileHandle (the pin reads through one). */
  async function countReads(): Promise<{ calls: () => number; restore: () => void }> {
    const probe = await fsPromises.open(join(dir, 'probe'), 'w');
    const proto = Object.getPrototypeOf(probe) as { read: (...args: unknown[]) => unknown };
    await probe.close();
    const spy = vi.spyOn(proto, 'read');
    return { calls: () => spy.mock.calls.length, restore: () => spy.mockRestore() };
  }

  it.each(['descriptor', 'copy'] as PinMode[])('is refused on its size before a byte is read (%s): a sparse 2 GiB file is not hashed', async (mode) => {
    const path = join(root, REL);
    writeFileSync(path, '');
    truncateSync(path, GIB2); // no disk used
    const copyBase = join(dir, 'copies');
    mkdirSync(copyBase);
    const reads = await countReads();
    try {
      const outcome = await pinArchived(root, REL, mode, copyBase, { maxBytes: 1234 });
      expect(outcome).toEqual({
        kind: 'oversized',
        path,
        bytes: GIB2,
        maxBytes: 1234,
        recorded: true,
        reason: `${path} holds ${GIB2} bytes, more than the 1234 bytes recorded for it: not read`,
      });
      expect(reads.calls()).toBe(0);
      expect(readdirSync(copyBase)).toEqual([]); // no private copy written either
    } finally {
      reads.restore();
    }
  });

  it('with no size recorded, the cap is the largest file a download may be (4 GiB); within it, hashed as before', async () => {
    const path = join(root, REL);
    writeFileSync(path, '');
    truncateSync(path, ARCHIVED_MAX_BYTES + 1);
    const reads = await countReads();
    try {
      expect(await hashArchived(root, REL)).toMatchObject({
        kind: 'oversized',
        bytes: ARCHIVED_MAX_BYTES + 1,
        maxBytes: ARCHIVED_MAX_BYTES,
        recorded: false,
        reason: expect.stringContaining(`holds ${ARCHIVED_MAX_BYTES + 1} bytes, more than the ${ARCHIVED_MAX_BYTES} bytes any file gexwh downloads may hold`),
      });
      expect(reads.calls()).toBe(0);
      writeFileSync(path, 'abc');
      expect(await hashArchived(root, REL, { maxBytes: 3 })).toEqual({ kind: 'hashed', path, sha256: sha('abc'), bytes: 3 });
      expect(reads.calls()).toBeGreaterThan(0); // the count sees the pin's reads
      // Smaller than recorded: read (it costs no more than the recorded size), and the digest tells it apart.
      expect(await hashArchived(root, REL, { maxBytes: 10 })).toMatchObject({ kind: 'hashed', bytes: 3 });
    } finally {
      reads.restore();
    }
  });
});
