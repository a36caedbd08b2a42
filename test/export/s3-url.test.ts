import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { normalizeExportOptions } from '../../src/export/export.js';
import { isS3Url, parseS3Url } from '../../src/export/s3-url.js';
import { checkExportFlags } from '../../src/cli/export-flags.js';

describe('s3:// addresses', () => {
  it('splits bucket and prefix, trailing slashes dropped', () => {
    expect(parseS3Url('s3://team-bucket/gex/prod/')).toEqual({ bucket: 'team-bucket', prefix: 'gex/prod' });
    expect(parseS3Url('s3://team.bucket')).toEqual({ bucket: 'team.bucket', prefix: '' });
    expect(isS3Url('S3://x')).toBe(true);
    expect(isS3Url('./s3/x')).toBe(false);
  });

  it('refuses a bad bucket or prefix as a usage error that says what is allowed', () => {
    for (const bad of ['s3://', 's3://Upper/x', 's3://ab/x', 's3://bucket_name/x', 's3://bucket/a//b', 's3://bucket/../x', 's3://bucket/a/./b']) {
      expect(() => parseS3Url(bad), bad).toThrow(UsageError);
    }
    expect(() => parseS3Url('s3://Upper/x')).toThrow(/lowercase letters, digits, dots and hyphens/);
  });

  it('an s3:// --out is kept as written (not resolved as a path); a bad one fails where the flags are checked', () => {
    expect(normalizeExportOptions({ outDir: 's3://team-bucket/gex/' }).outDir).toBe('s3://team-bucket/gex');
    expect(() => checkExportFlags({ out: 's3://No/gex' })).toThrow(UsageError);
  });
});
