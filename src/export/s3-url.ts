// s3://bucket/prefix addresses (pure): kept apart from s3.ts so that checking an --out does
// not load the AWS SDK, which every command would otherwise pay for at start.
import { UsageError } from '../core/errors.js';

export interface S3Location {
  bucket: string;
  /** Without leading or trailing slash; '' for the bucket's root. */
  prefix: string;
}

const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

export const isS3Url = (value: string): boolean => /^s3:\/\//i.test(value);

/** Splits s3://bucket/prefix; a bad bucket name or a `..` in the prefix is a usage error (exit 2). */
export function parseS3Url(url: string): S3Location {
  const match = /^s3:\/\/([^/]*)\/?(.*)$/i.exec(url);
  const bucket = match?.[1] ?? '';
  const prefix = (match?.[2] ?? '').replace(/\/+$/, '');
  if (!BUCKET_NAME.test(bucket)) {
    throw new UsageError(`export: bad bucket "${bucket}" in ${url}; a bucket name is 3-63 characters: lowercase letters, digits, dots and hyphens`);
  }
  if (prefix.split('/').some((part) => part === '..' || part === '.' || (part === '' && prefix !== ''))) {
    throw new UsageError(`export: bad prefix "${prefix}" in ${url}; use s3://bucket/some/prefix (no empty, . or .. parts)`);
  }
  return { bucket, prefix };
}
