// A gzip body's inflated size, measured while it downloads. The manifest's sha256 and size come from
// the same server as the body, so a consistent "gzip bomb" (a few MB inflating to many GB) would pass
// every check until DuckDB inflated it whole while loading. The meter inflates on the side (the bytes
// written to disk are the body's own), counts, discards, and fails the download once the count runs
// far past what the declared rows can hold. A body that does not inflate cleanly is left to the
// sha256 check: the meter only stops counting.
import { createGunzip, type Gunzip } from 'node:zlib';

/** Room per declared row: the widest layout's row is under 1 KB of CSV. */
export const MAX_INFLATED_BYTES_PER_ROW = 4 * 1024;
/** Room for the header line and slack, so a file of very few rows is not judged by its header. */
export const INFLATED_ALLOWANCE_BYTES = 256 * 1024;

/** The most a gzip of `rows` declared rows may inflate to. */
export function maxInflatedBytes(rows: number): number {
  return Math.max(0, rows) * MAX_INFLATED_BYTES_PER_ROW + INFLATED_ALLOWANCE_BYTES;
}

export interface InflateMeter {
  /** Feeds a chunk of the compressed body; resolves once the inflater can take more (back-pressure). */
  write(chunk: Buffer): Promise<void>;
  /** Ends the body and waits for its last inflated bytes. */
  end(): Promise<void>;
  /** The inflated size so far. */
  readonly inflated: number;
  /** Whether the inflated size has passed the cap. */
  readonly exceeded: boolean;
  destroy(): void;
}

export function createInflateMeter(maxBytes: number): InflateMeter {
  // Large output chunks: the meter only counts them, and fewer events cost less of the event loop.
  const gunzip: Gunzip = createGunzip({ chunkSize: 256 * 1024 });
  let inflated = 0;
  let broken = false;
  gunzip.on('data', (chunk: Buffer) => {
    inflated += chunk.length;
    // Once past the cap the answer is known: inflating further would only burn CPU.
    if (inflated > maxBytes) gunzip.destroy();
  });
  gunzip.on('error', () => {
    broken = true;
  });
  const settled = new Promise<void>((resolve) => {
    gunzip.once('end', resolve);
    gunzip.once('close', resolve);
  });
  const idle = () => broken || gunzip.destroyed;
  return {
    async write(chunk) {
      if (idle()) return;
      if (!gunzip.write(chunk)) {
        await new Promise<void>((resolve) => {
          const done = () => {
            gunzip.off('drain', done);
            gunzip.off('close', done);
            resolve();
          };
          gunzip.once('drain', done);
          gunzip.once('close', done);
        });
      }
    },
    async end() {
      if (!idle()) gunzip.end();
      if (!idle()) await settled;
    },
    get inflated() {
      return inflated;
    },
    get exceeded() {
      return inflated > maxBytes;
    },
    destroy() {
      gunzip.destroy();
    },
  };
}
