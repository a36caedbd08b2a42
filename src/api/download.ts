// Fetching a presigned file link from the storage origin: no API key, no credentials, no redirect
// followed, streamed to a temp file while hashing (never buffered whole). Retries (network error,
// 5xx, truncated body) reuse the same link while it is valid; an expired link is signalled with
// LinkExpiredError so the caller decides whether to spend a credit on a new one. A local write
// failure (disk full, read-only folder) is not a network error: it is thrown at once, never retried.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { Transform, type Readable, type Writable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { Pool } from './undici-pool.js';
import {
  BodyTooLargeError,
  errorMessage,
  GexwhError,
  InflatedTooLargeError,
  LinkExpiredError,
  LocalWriteError,
  NetworkError,
  UnsafeResponseError,
} from '../core/errors.js';
import { discard, dropBody, describeNetworkError, firstHeader, outcomeOfThrown, readCapped, slowness, SlowBodyError, type Timeouts } from './http.js';
import { createInflateMeter } from './inflate-meter.js';
import { checkFileLocation, describeLink, type LocationPolicy } from './location.js';
import { decide, type AttemptOutcome, type RetryPolicy, type Sleep } from './retry.js';

/** A presigned link is valid for up to 15 minutes (spec, Limits). */
export const DEFAULT_LINK_LIFETIME_MS = 15 * 60 * 1000;
/** Without expectedBytes, refuse anything larger than this. */
export const DEFAULT_MAX_FILE_BYTES = 4 * 1024 ** 3;
const MAX_ERROR_BODY_BYTES = 64 * 1024;

export interface DownloadOptions {
  /** The manifest's size: also the default cap, since a bigger file cannot match the manifest. */
  expectedBytes?: number;
  /** Abort once more bytes than this arrive. Default: expectedBytes, else 4 GiB. */
  maxBytes?: number;
  signal?: AbortSignal;
  /**
   * Once aborted, a failed attempt is not tried again (the attempt in flight goes on). For a paid
   * link that must not be thrown away by a stop, yet must not hold the exit for long.
   */
  stopRetries?: AbortSignal;
  /** Opens the temp file for writing (default: fs.createWriteStream, created new: never through a link planted at its name). */
  openFile?: (tempPath: string) => Writable;
  /** When the link was issued; a link older than its lifetime is not tried (LinkExpiredError). */
  issuedAt?: Date;
  /** The body is a gzip: abort once it inflates past this many bytes (see maxInflatedBytes). */
  maxInflatedBytes?: number;
}

export interface DownloadResult {
  bytes: number;
  sha256: string;
}

export interface StorageDownloaderDeps {
  timeouts: Timeouts;
  policy: RetryPolicy;
  sleep: Sleep;
  now: () => number;
  linkLifetimeMs: number;
  userAgent: string;
  locationPolicy: LocationPolicy;
}

type AttemptResult = { done: true; result: DownloadResult } | { done: false; outcome: AttemptOutcome; detail: string };

export class StorageDownloader {
  // One pool per storage origin, created with no default headers: nothing of the API's leaks here.
  private readonly pools = new Map<string, Pool>();

  constructor(private readonly deps: StorageDownloaderDeps) {}

  async download(location: URL, tempPath: string, options: DownloadOptions = {}): Promise<DownloadResult> {
    const url = checkFileLocation(location.href, 'download', this.deps.locationPolicy); // callers may pass any URL: check again
    const maxBytes = options.maxBytes ?? options.expectedBytes ?? DEFAULT_MAX_FILE_BYTES;
    try {
      return await this.downloadWithRetries(url, tempPath, maxBytes, options);
    } catch (error) {
      await rm(tempPath, { force: true });
      throw error;
    }
  }

  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((pool) => pool.close()));
  }

  private async downloadWithRetries(url: URL, tempPath: string, maxBytes: number, options: DownloadOptions): Promise<DownloadResult> {
    for (let attempt = 1; ; attempt++) {
      // The temp file is created new by each attempt: what a failed one left goes first.
      if (attempt > 1) await rm(tempPath, { force: true });
      this.assertLinkFresh(url, options.issuedAt);
      const step = await this.attempt(url, tempPath, maxBytes, options);
      if (step.done) return step.result;
      const decision = decide(this.deps.policy, attempt, step.outcome);
      const gaveUp = () => new NetworkError(`download from ${describeLink(url)} failed after ${attempt} attempt(s): ${step.detail}`, { attempts: attempt });
      if (!decision.retry || options.stopRetries?.aborted === true) throw gaveUp();
      await this.pause(decision.delayMs, options).catch((error: unknown) => {
        throw options.stopRetries?.aborted === true && options.signal?.aborted !== true ? gaveUp() : error;
      });
    }
  }

  /** The backoff before a retry; a stop of the retries ends it early (and then no retry is made). */
  private pause(ms: number, options: DownloadOptions): Promise<void> {
    const wakers = [options.signal, options.stopRetries].filter((s): s is AbortSignal => s !== undefined);
    return this.deps.sleep(ms, wakers.length > 0 ? AbortSignal.any(wakers) : undefined);
  }

  private assertLinkFresh(url: URL, issuedAt: Date | undefined): void {
    if (issuedAt === undefined) return;
    const ageMs = this.deps.now() - issuedAt.getTime();
    if (ageMs >= this.deps.linkLifetimeMs) {
      throw new LinkExpiredError(`the link to ${describeLink(url)} is ${Math.round(ageMs / 1000)} s old (valid ${this.deps.linkLifetimeMs / 1000} s)`);
    }
  }

  private async attempt(url: URL, tempPath: string, maxBytes: number, options: DownloadOptions): Promise<AttemptResult> {
    const signal = options.signal;
    try {
      const response = await this.poolFor(url).request({
        method: 'GET',
        path: `${url.pathname}${url.search}`,
        headers: { 'user-agent': this.deps.userAgent }, // nothing else: no key, no auth, no cookie
        headersTimeout: this.deps.timeouts.headersMs,
        bodyTimeout: this.deps.timeouts.bodyMs,
        signal: signal ?? null,
      });
      const openFile = options.openFile ?? ((path: string) => createWriteStream(path, { flags: 'wx' }));
      return await this.handleResponse(url, response.statusCode, response.headers, response.body, {
        tempPath,
        maxBytes,
        openFile,
        maxInflatedBytes: options.maxInflatedBytes,
      });
    } catch (error) {
      const outcome = outcomeOfThrown(error, signal);
      if (outcome === undefined) throw error;
      return { done: false, outcome, detail: describeNetworkError(error) };
    }
  }

  private async handleResponse(
    url: URL,
    status: number,
    headers: Record<string, string | string[] | undefined>,
    body: Readable,
    target: Target,
  ): Promise<AttemptResult> {
    if (status === 200) return this.receiveFile(headers, body, target);
    if (status >= 300 && status < 400) {
      await discard(body);
      throw new UnsafeResponseError(`the storage at ${describeLink(url)} answered ${status} (a redirect); storage redirects are not followed`);
    }
    const text = await readErrorText(body);
    if (isExpiryAnswer(status, text)) {
      throw new LinkExpiredError(`the storage says the link to ${describeLink(url)} expired (HTTP ${status})`);
    }
    if (status >= 500) return { done: false, outcome: { kind: 'status', status }, detail: `HTTP ${status}` };
    throw new NetworkError(`the storage at ${describeLink(url)} refused the download: HTTP ${status}`, { status });
  }

  private async receiveFile(
    headers: Record<string, string | string[] | undefined>,
    body: Readable,
    { tempPath, maxBytes, openFile, maxInflatedBytes }: Target,
  ): Promise<AttemptResult> {
    const declared = parseContentLength(firstHeader(headers, 'content-length'));
    if (declared !== undefined && declared > maxBytes) {
      dropBody(body);
      throw new BodyTooLargeError(`the file is ${declared} bytes, more than the ${maxBytes} bytes allowed`, { maxBytes });
    }
    // Wall time, not deps.now: tests move that clock to age links, which says nothing of the body's pace.
    const pace = { graceMs: this.deps.timeouts.bodyMs, minBytesPerSecond: this.deps.timeouts.minBytesPerSecond, now: () => performance.now() };
    const { bytes, sha256 } = await streamToFile(body, openFile(tempPath), tempPath, { maxBytes, pace, maxInflatedBytes });
    if (declared !== undefined && bytes !== declared) {
      return { done: false, outcome: { kind: 'truncated' }, detail: `body ended after ${bytes} of ${declared} bytes` };
    }
    return { done: true, result: { bytes, sha256 } };
  }

  private poolFor(url: URL): Pool {
    let pool = this.pools.get(url.origin);
    if (pool === undefined) {
      pool = new Pool(url.origin, {
        connectTimeout: this.deps.timeouts.connectMs,
        headersTimeout: this.deps.timeouts.headersMs,
        bodyTimeout: this.deps.timeouts.bodyMs,
      });
      this.pools.set(url.origin, pool);
    }
    return pool;
  }
}

/** Where a body goes: the temp file, how it is opened, and the most bytes it may hold. */
interface Target {
  tempPath: string;
  maxBytes: number;
  openFile: (tempPath: string) => Writable;
  maxInflatedBytes: number | undefined;
}

interface Pace {
  graceMs: number;
  minBytesPerSecond: number;
  now: () => number;
}

/**
 * Write the body to `file` (the opened tempPath), hashing and counting on the way; fsync at the end.
 * An error of the file itself becomes a LocalWriteError; the body's errors pass through unchanged.
 */
async function streamToFile(
  body: Readable,
  file: Writable,
  tempPath: string,
  limits: { maxBytes: number; pace: Pace; maxInflatedBytes: number | undefined },
): Promise<DownloadResult> {
  const { maxBytes, pace } = limits;
  const hash = createHash('sha256');
  let bytes = 0;
  const started = pace.now();
  const inflate = limits.maxInflatedBytes === undefined ? undefined : createInflateMeter(limits.maxInflatedBytes);
  const tooInflated = () =>
    new InflatedTooLargeError(`the file inflates past ${limits.maxInflatedBytes} bytes, far more than its declared rows can hold; download aborted`, {
      maxInflatedBytes: limits.maxInflatedBytes,
    });
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      if (bytes > maxBytes) {
        callback(new BodyTooLargeError(`the file exceeds the ${maxBytes} bytes allowed; download aborted`, { maxBytes }));
        return;
      }
      const slow = slowness(bytes, pace.now() - started, pace);
      if (slow !== undefined) {
        callback(new SlowBodyError(slow));
        return;
      }
      hash.update(chunk);
      if (inflate === undefined) return void callback(null, chunk);
      inflate.write(chunk).then(() => callback(inflate.exceeded ? tooInflated() : null, chunk), callback);
    },
    flush(callback) {
      if (inflate === undefined) return void callback();
      inflate.end().then(() => callback(inflate.exceeded ? tooInflated() : null), callback);
    },
  });
  // The first stream to fail is the origin; pipeline then destroys the others with the same error.
  let origin: 'file' | 'body' | undefined;
  body.once('error', () => (origin ??= 'body'));
  meter.once('error', () => (origin ??= 'body'));
  file.once('error', () => (origin ??= 'file'));
  try {
    await pipeline(body, meter, file);
  } catch (error) {
    // A body that fails at once can beat the temp file's own open: wait until the file is closed,
    // else the caller's removal runs first and the open creates the file after it.
    await finished(file).catch(() => undefined);
    throw origin === 'file' ? localWriteError(error) : error;
  } finally {
    inflate?.destroy();
  }
  try {
    const handle = await open(tempPath, 'r+');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw localWriteError(error);
  }
  return { bytes, sha256: hash.digest('hex') };
}

function localWriteError(error: unknown): LocalWriteError {
  const detail = errorMessage(error);
  return new LocalWriteError(`the downloaded file could not be written to disk: ${detail}`, {}, { cause: error });
}

/** S3-style 403/400 "Request has expired", or 410 Gone. */
function isExpiryAnswer(status: number, text: string): boolean {
  if (status === 410) return true;
  return (status === 403 || status === 400) && /expired/i.test(text);
}

async function readErrorText(body: Readable): Promise<string> {
  try {
    return (await readCapped(body, MAX_ERROR_BODY_BYTES, () => new GexwhError('error body too large'))).toString('utf8');
  } catch {
    return '';
  }
}

function parseContentLength(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value.trim());
}
