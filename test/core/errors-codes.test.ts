import { expect, it } from 'vitest';
import * as errors from '../../src/core/errors.js';

it('each kind of error has its stable code; an API error its slug; anything else is unexpected', () => {
  const codes = {
    usage: new errors.UsageError('x'),
    auth: new errors.AuthError('x'),
    locked: new errors.LockError('x'),
    partial: new errors.PartialFailureError('x'),
    integrity: new errors.IntegrityError('x'),
    damaged_warehouse: new errors.DamagedWarehouseError('x'),
    not_a_warehouse: new errors.NotAWarehouseError('x'),
    api_schema: new errors.ApiSchemaError('/me', 'x'),
    network: new errors.NetworkError('x'),
    unsafe_response: new errors.UnsafeResponseError('x'),
    interrupted: new errors.InterruptedError('SIGTERM'),
    timeout: new errors.QueryTimeoutError('x'),
    unsafe_warehouse: new errors.UnsafeWarehouseError('x'),
    checks_failed: new errors.ChecksFailedError('x'),
    rate_limited: new errors.ApiError(429, 'rate_limited', 'x', '/me'),
    unexpected: new Error('x'),
  };
  for (const [code, error] of Object.entries(codes)) expect(errors.errorCodeOf(error), code).toBe(code);
  expect(errors.errorCodeOf(new errors.RefusedQueryError('x'))).toBe('usage');
  expect(errors.exitCodeOf(new errors.NotAWarehouseError('x'))).toBe(2);
  expect(errors.errorCodeOf('a string')).toBe('unexpected');
});
