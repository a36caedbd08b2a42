import { describe, expect, it } from 'vitest';
import { QuotaExceededError } from '../../src/api/index.js';
import { ApiError, AuthError } from '../../src/core/errors.js';
import { BudgetReached, stopReason, targetErrorKind } from '../../src/capture/capture.js';

describe('what an error during one capture target means for the run', () => {
  const quota = new QuotaExceededError('quota_exceeded', 'no requests left', '/levels', {}, 'requests');
  it.each([
    ['a stop signal, whatever the error', new ApiError(500, 'internal', 'x', '/levels'), true, 'interrupted'],
    ['--max-requests reached', new BudgetReached(), false, 'max_requests'],
    ['the request quota used up', quota, false, 'quota'],
    ['a refused key', new AuthError('bad key'), false, 'fatal'],
    ['a 401', new ApiError(401, 'unauthorized', 'x', '/levels'), false, 'fatal'],
    ['a plan without the endpoint', new ApiError(403, 'subscription_required', 'x', '/levels'), false, 'fatal'],
    ['an error about this target alone', new ApiError(404, 'not_found', 'x', '/levels'), false, 'failed'],
    ['anything else', new Error('socket hang up'), false, 'failed'],
  ] as const)('%s → %s', (_, error, aborted, kind) => {
    expect(targetErrorKind(error, aborted)).toBe(kind);
  });

  it('the reason given to the targets not reached names the bound', () => {
    expect(stopReason('quota', 5)).toBe('request quota used up');
    expect(stopReason('max_requests', 5)).toBe('--max-requests 5 reached');
  });
});
