// HTTP plumbing shared by the API and the storage listener: the error type the routes throw, the
// JSON envelope, and body delivery (where the body-level faults act).

import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FaultAction } from './faults.js';

/** An error answer of the spec: {error, message, ...hints}, never wrapped in data/meta. */
export class HttpError extends Error {
  readonly status: number;
  readonly slug: string;
  readonly hints: Record<string, unknown>;
  readonly headers: Record<string, string>;
  constructor(status: number, slug: string, message: string, hints: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
    super(message);
    this.status = status;
    this.slug = slug;
    this.hints = hints;
    this.headers = headers;
  }
}

export function errorBody(error: HttpError): Record<string, unknown> {
  return { error: error.slug, message: error.message, ...error.hints };
}

export function sendJson(res: ServerResponse, status: number, payload: unknown, headers: Record<string, string> = {}, fault?: FaultAction): Promise<void> {
  const body = Buffer.from(JSON.stringify(payload), 'utf8');
  return deliver(res, status, { 'Content-Type': 'application/json; charset=utf-8', ...headers }, body, fault);
}

export function sendError(res: ServerResponse, error: HttpError, fault?: FaultAction): Promise<void> {
  return sendJson(res, error.status, errorBody(error), error.headers, fault);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Writes status, headers and body, applying a body-level fault if one is given:
 * truncate (announces the full length, sends part, destroys the socket), corrupt (one byte
 * flipped), slow (paced chunks), wrong_length (a false Content-Length, then the connection closes).
 */
export async function deliver(res: ServerResponse, status: number, headers: Record<string, string>, body: Buffer, fault?: FaultAction): Promise<void> {
  let payload = body;
  let contentLength = body.length;
  if (fault?.kind === 'corrupt' && payload.length > 0) {
    payload = Buffer.from(body);
    const at = Math.floor(payload.length / 2);
    payload[at] = (payload[at] ?? 0) ^ 0xff;
  }
  if (fault?.kind === 'wrong_length') contentLength = fault.contentLength;
  res.writeHead(status, { ...headers, 'Content-Length': String(contentLength) });
  const isHead = res.req.method === 'HEAD';
  if (isHead) {
    res.end();
    return;
  }
  if (fault?.kind === 'truncate') {
    const cut = Math.max(0, Math.min(fault.atByte ?? Math.floor(payload.length / 2), payload.length - 1));
    await writeAndFlush(res, payload.subarray(0, cut));
    res.destroy();
    return;
  }
  if (fault?.kind === 'wrong_length') {
    // The connection cannot be reused after a lying Content-Length.
    await writeAndFlush(res, payload.subarray(0, Math.min(payload.length, Math.max(0, contentLength))));
    res.destroy();
    return;
  }
  if (fault?.kind === 'slow') {
    await writeSlowly(res, payload, fault.bytesPerSecond);
    return;
  }
  res.end(payload);
}

async function writeSlowly(res: ServerResponse, payload: Buffer, bytesPerSecond: number): Promise<void> {
  const ticksPerSecond = 10;
  const chunk = Math.max(1, Math.floor(bytesPerSecond / ticksPerSecond));
  for (let at = 0; at < payload.length; at += chunk) {
    if (res.destroyed) return;
    res.write(payload.subarray(at, at + chunk));
    await sleep(1000 / ticksPerSecond);
  }
  res.end();
}

/** Resolves once the chunk has been handed to the socket, so a destroy() after it keeps it. */
function writeAndFlush(res: ServerResponse, chunk: Buffer): Promise<void> {
  return new Promise((resolve) => {
    res.write(chunk, () => resolve());
  });
}

/** Destroys the socket without any answer (the "drop" fault). */
export function dropConnection(req: IncomingMessage): void {
  req.socket.destroy();
}

export function listen(server: Server, host: string, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve(`http://${shownHost}:${address.port}`);
    });
  });
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
