// TEST HOOK for the built CLI, never part of gexwh. A full disk or a read-only archive cannot be made
// on a CI machine without privileges, so the storage-fault tests start the CLI with
// `node --import <this file>` and GEXWH_TEST_ARCHIVE_WRITE_ERROR=CODE[:after=N] (CODE: ENOSPC, EDQUOT,
// EROFS, EACCES or EPERM): the first N archive temp files the process opens are written, every later
// one fails with a NodeJS.ErrnoException of that code, as the file system would. It wraps
// fs.createWriteStream for archive temp names only (`<date>_<kind>.csv.gz.<12 hex>.part`), so the
// production code carries no hook and reads no test variable.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { constants as osConstants } from 'node:os';
import { Writable } from 'node:stream';
import { getSystemErrorMap } from 'node:util';

export const FAULT_VARIABLE = 'GEXWH_TEST_ARCHIVE_WRITE_ERROR';
const HOOK_CODES = ['ENOSPC', 'EDQUOT', 'EROFS', 'EACCES', 'EPERM'];
const ARCHIVE_TEMP = /\.csv\.gz\.[0-9a-f]{12}\.part$/;

/** `CODE[:after=N]` as { code, after }; undefined for no fault; an error for anything else, so a typo cannot disable a test. */
export function parseWriteFault(value) {
  if (value === undefined || value === '') return undefined;
  const match = /^([A-Z]+)(?::after=(\d+))?$/.exec(value);
  if (match === null || !HOOK_CODES.includes(match[1])) {
    throw new Error(`${FAULT_VARIABLE}: expected one of ${HOOK_CODES.join(', ')} with an optional :after=N`);
  }
  return { code: match[1], after: Number(match[2] ?? 0) };
}

/** A stream that fails on open like the file system does: same code, errno, syscall, message. */
function failingWriteStream(code, path) {
  const errno = -osConstants.errno[code];
  const description = getSystemErrorMap().get(errno)?.[1] ?? code;
  const syscall = code === 'ENOSPC' || code === 'EDQUOT' ? 'write' : 'open';
  const error = Object.assign(new Error(`${code}: ${description}, ${syscall} '${path}'`), { code, errno, syscall, path });
  return new Writable({ construct: (callback) => callback(error) });
}

/** `open` for the first `after` calls, then a stream failing with the fault's code at every call. */
export function faultyOpener(fault, open) {
  let opened = 0;
  return (path, options) => {
    opened += 1;
    return opened > fault.after ? failingWriteStream(fault.code, String(path)) : open(path, options);
  };
}

const fault = parseWriteFault(process.env[FAULT_VARIABLE]);
if (fault !== undefined) {
  const original = fs.createWriteStream;
  const faulty = faultyOpener(fault, original);
  fs.createWriteStream = (path, options) => (ARCHIVE_TEMP.test(String(path)) ? faulty(path, options) : original(path, options));
  syncBuiltinESMExports(); // `import { createWriteStream } from 'node:fs'` sees the wrapper too
}
