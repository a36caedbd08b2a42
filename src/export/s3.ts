// An export to object storage (`--out s3://bucket/prefix`): AWS S3 or any S3-compatible store
// (MinIO, R2, Ceph) through `--s3-endpoint` and `--s3-force-path-style`. Credentials come from the
// AWS SDK's standard chain only (environment, shared profile, SSO, instance or container role): the
// GEX key is never given to this client, so it cannot reach the store's host. Each object is one
// PUT (or one multipart upload, which the store makes visible only once complete), so a reader sees
// an object whole or not at all; the manifest, written last, lists the objects of a finished export.
import { createReadStream, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import pLimit from 'p-limit';
import { ObjectStoreAuthError, ObjectStoreBucketError, ObjectStoreError } from '../core/errors.js';
import { hashFile } from '../core/hash.js';
import { hashText, listedPaths, type ExportTarget, type RecordedFile } from './target.js';
import { MANIFEST_FILE, manifestHashes } from './manifest.js';
import { parseS3Url, type S3Location } from './s3-url.js';
import { clickhouseS3Url } from './clickhouse.js';

export interface S3Options {
  /** An S3-compatible endpoint, e.g. http://localhost:9000 (default: AWS, from the region). */
  endpoint?: string;
  /** Address the bucket in the path (http://host/bucket/key), as MinIO and most local stores need. */
  forcePathStyle?: boolean;
  /** Default: the AWS chain's region (AWS_REGION, the profile), else us-east-1. */
  region?: string;
  /** Attempts per request, the SDK's retries included (default 3). */
  maxAttempts?: number;
}

/** Bytes per part of a multipart upload, and the parts in flight: at most ~32 MB of buffers per object. */
const PART_SIZE = 8 * 1024 * 1024;
const QUEUE_SIZE = 4;
/** HEAD requests in flight when checking objects a cut run uploaded. */
const HEAD_CONCURRENCY = 16;

/** The client: the AWS credential chain, and checksums only where required (S3-compatible stores differ). */
export function s3Client(options: S3Options): S3Client {
  // The SDK warns on Node < 22 at each start that its releases after January 2027 will need Node 22;
  // gexwh supports Node 20 with the SDK versions its lockfile pins, so the warning is only noise.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  return new S3Client({
    region: options.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1',
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    forcePathStyle: options.forcePathStyle === true,
    maxAttempts: options.maxAttempts ?? 3,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

const AUTH_CODES = new Set([
  'InvalidAccessKeyId',
  'SignatureDoesNotMatch',
  'AccessDenied',
  'InvalidToken',
  'ExpiredToken',
  'InvalidClientTokenId',
  'CredentialsProviderError',
]);

/** The SDK's error as one of ours: refused credentials exit 3, a missing bucket exit 2, the rest exit 1. */
export function objectStoreError(error: unknown, what: string, where: S3Location & { endpoint?: string | undefined }): Error {
  const { name, status, reason, code } = describeSdkError(error);
  const hints = { bucket: where.bucket, ...(where.endpoint ? { endpoint: where.endpoint } : {}) };
  if (AUTH_CODES.has(name) || status === 403) {
    return new ObjectStoreAuthError(
      `export: the object store refused the credentials (${code}) while ${what}; they come from the AWS chain: AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or an instance role`,
      hints,
      { cause: error },
    );
  }
  if (name === 'NoSuchBucket' || (what === 'checking the bucket' && status === 404)) {
    return new ObjectStoreBucketError(
      `export: no bucket "${where.bucket}"${where.endpoint ? ` at ${where.endpoint}` : ''}; create it first, or fix --out`,
      hints,
      { cause: error },
    );
  }
  return new ObjectStoreError(`export: the object store failed while ${what}: ${reason}; a rerun resumes, skipping the objects already uploaded`, hints, {
    cause: error,
  });
}

/** What the SDK's error says: its name, HTTP status, message, and a code to show. */
function describeSdkError(error: unknown): { name: string; status: number | undefined; reason: string; code: string } {
  const name = error instanceof Error ? error.name : '';
  const status = error instanceof S3ServiceException ? error.$metadata.httpStatusCode : undefined;
  const reason = error instanceof Error ? error.message || name : String(error);
  // A HEAD answer has no body, so the SDK names its error 'Unknown': the status says more.
  const code = name && name !== 'Unknown' ? name : `HTTP ${status ?? '?'}`;
  return { name, status, reason, code };
}

/**
 * The target of an s3:// export, after checking that the bucket exists and the credentials work
 * (HeadBucket), and reading the manifest of the previous export, if any.
 */
export async function s3Target(url: string, options: S3Options, client: S3Client = s3Client(options)): Promise<ExportTarget> {
  const location = parseS3Url(url);
  const where = { ...location, endpoint: options.endpoint };
  const root = `s3://${location.bucket}${location.prefix ? `/${location.prefix}` : ''}`;
  const keyOf = (path: string): string => path.slice(`s3://${location.bucket}/`.length);
  const call = async <T>(what: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (error) {
      throw objectStoreError(error, what, where);
    }
  };
  await call('checking the bucket', () => client.send(new HeadBucketCommand({ Bucket: location.bucket })));
  const previous = await call('reading the previous manifest', () => readText(client, location.bucket, keyOf(`${root}/${MANIFEST_FILE}`)));
  const listed = manifestHashes(previous);
  const listedKeys = listedPaths(previous);

  /** An object is held when the last manifest lists it with this sha256, or a HEAD shows the recorded size and sha256. */
  const holds = async (file: RecordedFile): Promise<boolean> => {
    if (file.sha256 === null) return false;
    if (listed.get(file.path.slice(root.length + 1)) === file.sha256) return true;
    const head = await call(`checking ${file.path}`, () =>
      client.send(new HeadObjectCommand({ Bucket: location.bucket, Key: keyOf(file.path) })).catch((error: unknown) => {
        if (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404) return null;
        throw error;
      }),
    );
    return head !== null && head.ContentLength === file.bytes && head.Metadata?.sha256 === file.sha256;
  };

  const region = options.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
  return {
    root,
    local: false,
    clickhouse: { kind: 's3', url: clickhouseS3Url(location.bucket, location.prefix, options.endpoint, region) },
    stagingRoot: () => tmpdir(),
    pathOf: (relative) => `${root}/${relative}`,
    async held(files) {
      const limit = pLimit(HEAD_CONCURRENCY);
      const results = await Promise.all(files.map((file) => limit(async () => ((await holds(file)) ? file.path : null))));
      return new Set(results.filter((path): path is string => path !== null));
    },
    async place(tempFile, path, fingerprint) {
      try {
        const stored = hashFile(tempFile);
        await call(`uploading ${path}`, () =>
          new Upload({
            client,
            queueSize: QUEUE_SIZE,
            partSize: PART_SIZE,
            leavePartsOnError: false,
            params: {
              Bucket: location.bucket,
              Key: keyOf(path),
              Body: createReadStream(tempFile),
              ContentLength: stored.bytes,
              ContentType: 'application/octet-stream',
              Metadata: { sha256: stored.sha256, fingerprint },
            },
          }).done(),
        );
        return stored;
      } finally {
        rmSync(tempFile, { force: true });
      }
    },
    async putText(path, text) {
      const stored = hashText(text);
      const contentType = path.endsWith('.json') ? 'application/json' : 'application/sql';
      await call(`uploading ${path}`, () =>
        client.send(
          new PutObjectCommand({ Bucket: location.bucket, Key: keyOf(path), Body: text, ContentType: contentType, Metadata: { sha256: stored.sha256 } }),
        ),
      );
      return stored;
    },
    listed: () => listedKeys,
    async occupants(limit) {
      // The prefix as a folder: `team/`, never `teammates/` beside it. One page is enough to know (no
      // MaxKeys: s3rver answers a truncated page with a 500).
      const prefix = location.prefix ? `${location.prefix}/` : '';
      const page = await call('listing the prefix', () => client.send(new ListObjectsV2Command({ Bucket: location.bucket, Prefix: prefix })));
      const keys = (page.Contents ?? []).flatMap((object) => (object.Key === undefined ? [] : [`s3://${location.bucket}/${object.Key}`]));
      return keys.slice(0, limit);
    },
    async remove(relative) {
      const path = `${root}/${relative}`;
      await call(`removing ${path}`, () => client.send(new DeleteObjectCommand({ Bucket: location.bucket, Key: keyOf(path) })));
      return true;
    },
  };
}

/** An object's text, or null when there is none. */
async function readText(client: S3Client, bucket: string, key: string): Promise<string | null> {
  try {
    const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return (await object.Body?.transformToString('utf8')) ?? null;
  } catch (error) {
    if (error instanceof S3ServiceException && (error.name === 'NoSuchKey' || error.$metadata.httpStatusCode === 404)) return null;
    throw error;
  }
}
