// The storage origin: a second listener (another port, so another origin) that serves daily files
// through presigned links, like an object store.
//
// - A link is /files/<exchange>/<symbol>/<date>/<file>.csv.gz?expires=<unix s>&sig=<HMAC-SHA256>,
//   signed with the emulator's secret; it expires on the emulator clock (default 15 minutes).
// - It serves the file's current revision when fetched (a rebuild in between changes the bytes, as
//   an object store would), as application/gzip with Content-Length and the download name
//   <date>_<file>.csv.gz.
// - Any request carrying X-API-Key or Authorization is refused with 403 and counted (tripwire):
//   a client must never send its key to the storage origin.
// - Errors are JSON {error, message}: 403 credentials_not_allowed, 403 link_expired ("link
//   expired"), 403 invalid_signature, 404 not_found, 405 method_not_allowed.

import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { FILE_KINDS, type FileKind } from '../market/types.js';
import type { FaultAction, FaultBook } from './faults.js';
import { deliver, dropConnection, HttpError, sendError } from './http.js';

export interface FileRef {
  exchange: string;
  symbol: string;
  date: string;
  file: FileKind;
}

export interface StorageCounters {
  hits: number;
  tripwire: number;
}

export interface StorageDeps {
  secret: Buffer;
  now(): Date;
  faults: FaultBook;
  /** The bytes currently stored for a file, or undefined when there is none. */
  fileBytes(ref: FileRef): Promise<Buffer | undefined>;
  counters: StorageCounters;
  recordHit(pathAndSearch: string): void;
}

function linkPath(ref: FileRef): string {
  return `/files/${ref.exchange}/${ref.symbol}/${ref.date}/${ref.file}.csv.gz`;
}

function signature(secret: Buffer, path: string, expires: number): Buffer {
  return createHmac('sha256', secret).update(`storage-link:${path}:${expires}`).digest();
}

/** A presigned link to the file, valid until `expiresAt`. */
export function presignLink(storageUrl: string, secret: Buffer, ref: FileRef, expiresAt: Date): string {
  const path = linkPath(ref);
  const expires = Math.floor(expiresAt.getTime() / 1000);
  const sig = signature(secret, path, expires).toString('base64url');
  return `${storageUrl}${path}?expires=${expires}&sig=${sig}`;
}

const LINK_RE = /^\/files\/([a-z]+)\/([A-Z0-9._-]+)\/(\d{4}-\d{2}-\d{2})\/([a-z_]+)\.csv\.gz$/;

function parseRef(pathname: string): FileRef | undefined {
  const match = LINK_RE.exec(pathname);
  if (!match) return undefined;
  const file = match[4] as FileKind;
  if (!FILE_KINDS.includes(file)) return undefined;
  return { exchange: match[1]!, symbol: match[2]!, date: match[3]!, file };
}

function checkLink(deps: StorageDeps, url: URL): FileRef {
  const ref = parseRef(url.pathname);
  if (!ref) throw new HttpError(404, 'not_found', 'No such object.');
  const expires = Number(url.searchParams.get('expires'));
  const given = Buffer.from(url.searchParams.get('sig') ?? '', 'base64url');
  const expected = signature(deps.secret, url.pathname, expires);
  if (!Number.isInteger(expires) || given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new HttpError(403, 'invalid_signature', 'The link signature does not match.');
  }
  if (expires * 1000 <= deps.now().getTime()) throw new HttpError(403, 'link_expired', 'The link expired; request a new one.');
  return ref;
}

/** Storage links carry their own signature: a request with credentials, or not a GET, is refused. */
function checkRequest(deps: StorageDeps, req: IncomingMessage): void {
  if (req.headers['x-api-key'] !== undefined || req.headers.authorization !== undefined) {
    deps.counters.tripwire += 1;
    throw new HttpError(403, 'credentials_not_allowed', 'Storage links are self-authenticating: send no API key or Authorization header.');
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    throw new HttpError(405, 'method_not_allowed', 'Only GET is allowed.', {}, { Allow: 'GET, HEAD' });
  }
}

/** Plays a storage fault; true when it answered (or dropped) the request, false when the request goes on. */
async function answeredByFault(fault: FaultAction | undefined, req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  if (fault?.kind === 'drop') {
    dropConnection(req);
    return true;
  }
  if (fault?.kind === 'delay') await new Promise((resolve) => setTimeout(resolve, fault.ms));
  if (fault?.kind === 'hold') await fault.until.catch(() => undefined);
  if (fault?.kind === 'status') {
    throw new HttpError(fault.status, fault.error ?? 'storage_error', fault.message ?? 'Storage error.');
  }
  if (fault?.kind === 'body') {
    await deliver(res, fault.status, { 'Content-Type': fault.contentType ?? 'application/octet-stream' }, Buffer.from(fault.body));
    return true;
  }
  return false;
}

async function handle(deps: StorageDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://storage.invalid');
  const pathAndSearch = url.pathname + url.search;
  deps.counters.hits += 1;
  deps.recordHit(pathAndSearch);
  checkRequest(deps, req);
  const fault = deps.faults.take('storage', pathAndSearch);
  if (await answeredByFault(fault, req, res)) return;
  const ref = checkLink(deps, url);
  const bytes = await deps.fileBytes(ref);
  if (!bytes) throw new HttpError(404, 'not_found', 'No such object.');
  const headers = {
    'Content-Type': 'application/gzip',
    'Content-Disposition': `attachment; filename="${ref.date}_${ref.file}.csv.gz"`,
    'Cache-Control': 'private, max-age=0',
  };
  return deliver(res, 200, headers, bytes, fault);
}

export function createStorageServer(deps: StorageDeps): Server {
  return createServer((req, res) => {
    handle(deps, req, res).catch((error: unknown) => {
      if (res.headersSent) return void res.destroy();
      const answer = error instanceof HttpError ? error : new HttpError(500, 'internal_error', 'Storage failure.');
      void sendError(res, answer);
    });
  });
}
