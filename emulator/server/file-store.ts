// The daily files the emulator serves, behind one index. Building a file (chains at every capture,
// CSV text, gzip, sha256) costs up to a second with realistic chains, and a manifest row needs the
// built file's size and sha256; so every file's manifest facts are kept for good once built (a few
// dozen bytes each), and the bytes in a bounded cache. With workers, files are built in worker
// threads (each holding its own copy of the deterministic market), the server's event loop stays
// free, and `warm` builds every completed file in the background, newest first, so a listing finds
// its rows ready. With a facts cache (the CLI's), the index starts from the facts earlier runs
// computed, and every file built is checked against them.

import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { LruCache } from '../market/lru.js';
import type { FileKind, MarketModel, MarketOptions } from '../market/types.js';
import { pickBuild } from './build-queue.js';
import type { FactsCache, FileFacts } from './facts-cache.js';
import type { FileRef } from './storage.js';

export type { FileFacts } from './facts-cache.js';

export interface BuiltFile extends FileFacts {
  data: Buffer;
}

export interface FileStore {
  /** Size, rows and sha256 of a file revision: from the index, else built. */
  facts(ref: FileRef, revision: number): Promise<FileFacts>;
  /** The bytes of a file revision. */
  bytes(ref: FileRef, revision: number): Promise<Buffer>;
  /** Builds these files in the background, in order, after any file asked for by a request. */
  warm(refs: readonly FileRef[]): void;
  /** Files whose facts are indexed (for tests and the emulator's startup line). */
  readonly indexed: number;
  /** Files built since start (for tests: a listing answered from the index builds none). */
  readonly built: number;
  close(): Promise<void>;
}

export interface BuildJob {
  exchange: string;
  symbol: string;
  date: string;
  file: FileKind;
  revision: number;
}

const BYTES_CACHE = 256 * 1024 * 1024;

const keyOf = (ref: FileRef, revision: number) => `${ref.exchange}/${ref.symbol}/${ref.date}/${ref.file}/${revision}`;

/**
 * Worker count for a server of its own (the CLI): one per core (the server's own thread mostly waits),
 * at most four (each worker holds its own market caches).
 */
export function defaultBuildWorkers(): number {
  return Math.min(4, availableParallelism());
}

/**
 * A store building in this thread (workers 0: tests and small chains, no thread start-up) or in
 * `workers` worker threads.
 */
export function createFileStore(model: MarketModel, workers: number, cache?: FactsCache): FileStore {
  const index = cache?.load() ?? new Map<string, FileFacts>();
  const bytesCache = new LruCache<string, Buffer>(BYTES_CACHE, (b) => b.length);
  const pending = new Map<string, Promise<BuiltFile>>();
  const pool = workers > 0 ? createPool(model.options, workers) : undefined;
  let built = 0;

  /** Indexes a built file's facts; facts already known (from the cache) must be the built ones. */
  const record = (key: string, file: BuiltFile): void => {
    built++;
    const known = index.get(key);
    if (!known) {
      const facts = { rows: file.rows, bytes: file.bytes, sha256: file.sha256 };
      index.set(key, facts);
      cache?.add(key, facts);
    } else if (known.sha256 !== file.sha256 || known.bytes !== file.bytes || known.rows !== file.rows) {
      // A listing already gave out these facts: serving other bytes would be a silent lie.
      cache?.discard();
      throw new Error(
        `emulator: ${key} built to sha256 ${file.sha256}, but the facts cache listed ${known.sha256}; the cache ${cache?.path ?? ''} was deleted, restart the emulator`,
      );
    }
  };

  const build = (ref: FileRef, revision: number, urgent: boolean): Promise<BuiltFile> => {
    const key = keyOf(ref, revision);
    const inFlight = pending.get(key);
    if (inFlight) {
      if (urgent) pool?.promote(key);
      return inFlight;
    }
    const job: BuildJob = { ...ref, revision };
    const promise = (pool ? pool.run(key, job, urgent) : Promise.resolve().then(() => buildHere(model, job))).then((file) => {
      record(key, file);
      bytesCache.set(key, file.data);
      return file;
    });
    pending.set(key, promise);
    const settle = () => pending.delete(key);
    promise.then(settle, settle);
    return promise;
  };

  return {
    async facts(ref, revision) {
      return index.get(keyOf(ref, revision)) ?? (await build(ref, revision, true));
    },
    async bytes(ref, revision) {
      return bytesCache.get(keyOf(ref, revision)) ?? (await build(ref, revision, true)).data;
    },
    warm(refs) {
      if (!pool) return;
      for (const ref of refs) {
        if (!index.has(keyOf(ref, 0))) build(ref, 0, false).catch(() => undefined);
      }
    },
    get indexed() {
      return index.size;
    },
    get built() {
      return built;
    },
    close: () => pool?.close() ?? Promise.resolve(),
  };
}

export function buildHere(model: MarketModel, job: BuildJob): BuiltFile {
  const built = model.dailyFile(job.exchange, job.symbol, job.date, job.file, job.revision);
  return { data: built.bytes, rows: built.rows, bytes: built.bytes.length, sha256: built.sha256 };
}

/** The worker moved the bytes over: wrap them rather than copy them. */
const asBuffer = (data: Uint8Array): Buffer => Buffer.from(data.buffer, data.byteOffset, data.byteLength);

interface Pool {
  run(key: string, job: BuildJob, urgent: boolean): Promise<BuiltFile>;
  promote(key: string): void;
  close(): Promise<void>;
}

interface Queued {
  key: string;
  session: string;
  urgent: boolean;
  job: BuildJob;
  resolve(file: BuiltFile): void;
  reject(error: Error): void;
}

/**
 * Worker threads taking one job at a time: urgent jobs (a request waits) go before warm-up jobs, and
 * a worker takes the files of the session it is on first (build-queue.ts).
 */
function createPool(options: MarketOptions, size: number): Pool {
  const urgent: Queued[] = [];
  const background: Queued[] = [];
  const idle: Worker[] = [];
  const busy = new Map<Worker, Queued>();
  const sessionOf = new Map<Worker, string>();
  let closed = false;

  // Warm-up waits while a request waits for a build, and then keeps to one worker at a time: the
  // other cores stay for requests and for the client that is usually syncing on the same machine
  // (every worker warming at once slowed a 60-day sync several times over).
  const running = (isUrgent: boolean) => [...busy.values()].some((item) => item.urgent === isUrgent);
  const takeFor = (worker: Worker): Queued | undefined => {
    const queue = urgent.length > 0 ? urgent : running(true) || running(false) ? [] : background;
    const others = new Set([...sessionOf].filter(([other]) => other !== worker).map(([, session]) => session));
    const at = pickBuild(queue, sessionOf.get(worker), others);
    return at < 0 ? undefined : queue.splice(at, 1)[0];
  };
  const next = () => {
    while (idle.length > 0 && !closed) {
      const worker = idle[idle.length - 1]!;
      const item = takeFor(worker);
      if (!item) return;
      idle.pop();
      busy.set(worker, item);
      sessionOf.set(worker, item.session);
      worker.postMessage(item.job);
    }
  };

  const workers = Array.from({ length: size }, () => {
    const worker = new Worker(new URL('./file-worker.js', import.meta.url), { workerData: options });
    worker.on('message', (message: { ok: true; file: BuiltFile } | { ok: false; error: string }) => {
      const item = busy.get(worker);
      busy.delete(worker);
      idle.push(worker);
      if (item) {
        if (message.ok) item.resolve({ ...message.file, data: asBuffer(message.file.data) });
        else item.reject(new Error(message.error));
      }
      next();
    });
    worker.on('error', (error) => {
      busy.get(worker)?.reject(error);
      busy.delete(worker);
    });
    // A worker must not keep the process alive on its own.
    worker.unref();
    idle.push(worker);
    return worker;
  });

  return {
    run(key, job, isUrgent) {
      if (closed) return Promise.reject(new Error('the emulator is closed'));
      return new Promise<BuiltFile>((resolve, reject) => {
        const session = `${job.exchange}/${job.symbol}/${job.date}`;
        (isUrgent ? urgent : background).push({ key, session, job, urgent: isUrgent, resolve, reject });
        next();
      });
    },
    promote(key) {
      const at = background.findIndex((item) => item.key === key);
      if (at >= 0) urgent.push(...background.splice(at, 1).map((item) => ({ ...item, urgent: true })));
    },
    async close() {
      closed = true;
      for (const item of [...urgent, ...background]) item.reject(new Error('the emulator is closed'));
      urgent.length = 0;
      background.length = 0;
      await Promise.all(workers.map((worker) => worker.terminate()));
    },
  };
}
