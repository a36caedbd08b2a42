// What a capture needs from the API, and the adapter from the client. The capture sees only these
// current-data calls and the count of requests spent, never the client itself: a test or another
// transport can stand in for it, as the sync's own port allows.
import type { ApiClient, ApiResponse } from '../api/index.js';

export interface CaptureApi {
  /** Free: the markets of each symbol, and the server's clock. */
  coins(): Promise<ApiResponse<'coins'>>;
  /** Free: the expirations a venue lists for a symbol (the cost of --by-strike). */
  expirations(exchange: string, symbol: string): Promise<ApiResponse<'expirations'>>;
  levels(exchange: string, symbol: string): Promise<ApiResponse<'levels'>>;
  termOi(exchange: string, symbol: string): Promise<ApiResponse<'termOi'>>;
  gexByStrike(exchange: string, symbol: string, expiration: string): Promise<ApiResponse<'gexByStrike'>>;
  /** Quota-counted requests made so far. */
  requestsSpent(): number;
}

export function captureApiFrom(client: ApiClient): CaptureApi {
  return {
    coins: () => client.coins(),
    expirations: (exchange, symbol) => client.expirations(exchange, symbol),
    levels: (exchange, symbol) => client.levels(exchange, symbol),
    termOi: (exchange, symbol) => client.termOi(exchange, symbol),
    gexByStrike: (exchange, symbol, expiration) => client.gexByStrike(exchange, symbol, expiration),
    requestsSpent: () => client.spent().requests,
  };
}
