import { describe, expect, it } from 'vitest';
import {
  ApiError,
  AuthError,
  BodyTooLargeError,
  ChecksFailedError,
  DamagedWarehouseError,
  errorCodeOf,
  errorMessage,
  exitCodeOf,
  ExitCode,
  InflatedTooLargeError,
  IntegrityError,
  InterruptedError,
  JournalError,
  LinkAnswerLostError,
  LinkExpiredError,
  LiveJournalError,
  LocalWriteError,
  LockError,
  NetworkError,
  ApiUnavailableError,
  ObjectStoreError,
  PartialFailureError,
  QueryTimeoutError,
  QuotaExceededError,
  RefusedQueryError,
  UnsafeResponseError,
  UnsafeWarehouseError,
  UsageError,
  usageErrorOfFs,
} from '../../src/core/errors.js';

describe('exit codes, decided in one place', () => {
  it.each([
    [new UsageError('x'), ExitCode.usage, 'usage'],
    [new RefusedQueryError('x'), ExitCode.usage, 'usage'],
    [new AuthError('x'), ExitCode.auth, 'auth'],
    [new ApiError(401, 'invalid_key', 'x', '/me'), ExitCode.auth, 'invalid_key'],
    [new ApiError(400, 'bad_request', 'x', '/me'), ExitCode.usage, 'bad_request'],
    [new QuotaExceededError('rate_limit_exceeded', 'x', '/me', {}, 'requests'), ExitCode.auth, 'rate_limit_exceeded'],
    [new LockError('x'), ExitCode.locked, 'locked'],
    [new PartialFailureError('x'), ExitCode.partial, 'partial'],
    [new IntegrityError('x'), ExitCode.partial, 'integrity'],
    [new InterruptedError('SIGINT'), ExitCode.sigint, 'interrupted'],
    [new InterruptedError('SIGTERM'), ExitCode.sigterm, 'interrupted'],
    [new InterruptedError('SIGINT', { message: 'query cancelled (SIGINT)' }), ExitCode.sigint, 'interrupted'],
    [new QueryTimeoutError('x'), 124, 'timeout'],
    [new UnsafeWarehouseError('x'), ExitCode.usage, 'unsafe_warehouse'],
    [new DamagedWarehouseError('x'), ExitCode.unexpected, 'damaged_warehouse'],
    [new NetworkError('x'), ExitCode.unreachable, 'network'],
    [new LinkAnswerLostError('x'), ExitCode.unreachable, 'network'],
    [new ApiUnavailableError(503, 'files_unavailable', 'x', '/me'), ExitCode.unreachable, 'files_unavailable'],
    [new ApiError(503, 'files_unavailable', 'x', '/me'), ExitCode.unexpected, 'files_unavailable'],
    [new ObjectStoreError('x'), ExitCode.unreachable, 'object_store'],
    [new UnsafeResponseError('x'), ExitCode.unexpected, 'unsafe_response'],
    [new BodyTooLargeError('x'), ExitCode.unexpected, 'unsafe_response'],
    [new InflatedTooLargeError('x'), ExitCode.unexpected, 'unsafe_response'],
    [new ChecksFailedError('x'), ExitCode.unexpected, 'checks_failed'],
    [new LinkExpiredError('x'), ExitCode.unexpected, 'unexpected'],
    [new LocalWriteError('x'), ExitCode.unexpected, 'unexpected'],
    [new JournalError('x'), ExitCode.unexpected, 'unexpected'],
    [new LiveJournalError('x'), ExitCode.unexpected, 'unexpected'],
    [new Error('x'), ExitCode.unexpected, 'unexpected'],
  ])('%s → exit %i, code %s', (error, exit, code) => {
    expect(exitCodeOf(error)).toBe(exit);
    expect(errorCodeOf(error)).toBe(code);
  });

  it('names each class after itself', () => {
    expect(new LiveJournalError('x').name).toBe('LiveJournalError');
    expect(new QuotaExceededError('s', 'm', '/e', {}, 'files').name).toBe('QuotaExceededError');
  });
});

describe('errorMessage', () => {
  it("is an Error's message, else the value as text", () => {
    expect(errorMessage(new UsageError('bad --since'))).toBe('bad --since');
    expect(errorMessage('plain')).toBe('plain');
    expect(errorMessage(42)).toBe('42');
    expect(errorMessage(undefined)).toBe('undefined');
  });
});

describe('usageErrorOfFs', () => {
  const fsError = (code: string, extra: Record<string, string>) => Object.assign(new Error(`${code}: x`), { code, ...extra });

  it('names the path the user gave (a rename names its destination) and the fix, as a usage error', () => {
    const rename = usageErrorOfFs(fsError('EISDIR', { syscall: 'rename', path: '/o/.chart.svg.1.tmp', dest: '/o/chart.svg' }));
    expect(rename).toBeInstanceOf(UsageError);
    expect(rename?.message).toBe('/o/chart.svg is a folder where a file is expected; give a file path');
    expect(rename?.hints).toEqual({ path: '/o/chart.svg', code: 'EISDIR' });
    expect(usageErrorOfFs(fsError('EEXIST', { syscall: 'mkdir', path: '/o/file' }))?.message).toMatch(
      /^\/o\/file \(or a folder on its way\) is a file where a folder is expected/,
    );
    expect(usageErrorOfFs(fsError('EROFS', { syscall: 'open', path: '/ro/x' }))?.message).toMatch(/read-only file system/);
  });

  it('leaves alone what the user cannot fix by a path: no path, another code, our own errors', () => {
    expect(usageErrorOfFs(fsError('EISDIR', {}))).toBeUndefined();
    expect(usageErrorOfFs(fsError('ENOENT', { path: '/x' }))).toBeUndefined();
    expect(usageErrorOfFs(fsError('EEXIST', { syscall: 'open', path: '/x' }))).toBeUndefined();
    expect(usageErrorOfFs(new UsageError('already ours'))).toBeUndefined();
  });
});
