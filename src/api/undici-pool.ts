// undici's Pool without the rest of undici. The package's index loads every part of it at once (fetch,
// WebSocket, cache stores, mocks, proxy agents: ~110 files, a fifth of a no-op sync's CPU at start);
// gexwh uses the pool alone. What the index does for a pool is done here too: the request API set on
// the dispatchers' prototype (pool.request, which every call of the client and the download makes).
import type { Pool as UndiciPool } from 'undici';
import dispatcherClass from 'undici/lib/dispatcher/dispatcher.js';
import requestApi from 'undici/lib/api/index.js';
import poolClass from 'undici/lib/dispatcher/pool.js';

Object.assign(dispatcherClass.prototype, requestApi);

export const Pool = poolClass as typeof UndiciPool;
export type Pool = UndiciPool;
