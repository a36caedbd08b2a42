// A real S3 server for tests: s3rver in this process on port 0 (filesystem store in a temp folder),
// behind a small HTTP proxy that records every request and can cut the network: after a given
// number of object PUTs it destroys the socket of every later request, as a dropped link would.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

export const S3_KEY = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', AWS_REGION: 'us-east-1' } as const;

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
}

export interface LocalS3 {
  /** The proxy's URL: what --s3-endpoint gets. */
  endpoint: string;
  seen: SeenRequest[];
  /** PUTs of objects (not of buckets) the server answered. */
  putsDone(): number;
  /** After `n` more object PUTs, every request's connection is destroyed; null lets everything through. */
  cutAfterPuts(n: number | null): void;
  close(): Promise<void>;
}

export async function startLocalS3(buckets: readonly string[]): Promise<LocalS3> {
  const directory = mkdtempSync(join(tmpdir(), 'gexwh-s3-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory, configureBuckets: buckets.map((name) => ({ name })) });
  const address = (await server.run()) as AddressInfo;
  const seen: SeenRequest[] = [];
  let puts = 0;
  let cutAt: number | null = null;
  const proxy: Server = createServer((req, res) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
    const objectPut = req.method === 'PUT' && /^\/[^/]+\/.+/.test(req.url ?? '');
    if (cutAt !== null && puts >= cutAt) {
      req.socket.destroy();
      return;
    }
    const upstream = request({ host: '127.0.0.1', port: address.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      if (objectPut && (answer.statusCode ?? 500) < 300) puts += 1;
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const port = (proxy.address() as AddressInfo).port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    seen,
    putsDone: () => puts,
    cutAfterPuts(n) {
      cutAt = n === null ? null : puts + n;
    },
    async close() {
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
