// A worker thread of the file store: its own copy of the deterministic market (same options, so the
// same bytes), building one daily file per message. The bytes go back without a copy.
import { parentPort, workerData } from 'node:worker_threads';
import { createMarketModel } from '../market/index.js';
import type { MarketOptions } from '../market/types.js';
import { buildHere, type BuildJob } from './file-store.js';

const model = createMarketModel(workerData as MarketOptions);

parentPort!.on('message', (job: BuildJob) => {
  try {
    const built = buildHere(model, job);
    // A Buffer may share a pooled ArrayBuffer: copy into one of its own before moving it across.
    const data = new Uint8Array(built.data);
    parentPort!.postMessage({ ok: true, file: { ...built, data } }, [data.buffer]);
  } catch (error) {
    parentPort!.postMessage({ ok: false, error: error instanceof Error ? error.message : String(error) });
  }
});
