// What an answer is, before what it says: something else on the way answering instead of the API,
// a stop by a signal, and whether the server may have charged a request it answered.
import { InterruptedError, NetworkError, outageHints, outageMessage, type Outage } from '../core/errors.js';
import { firstHeader } from './http.js';
import type { RawResponse } from './request-parts.js';

/**
 * Something on the way answered instead of the API (a captive portal, a proxy, a moved base URL):
 * an HTML page, or a redirect where the API answers JSON. The API could not be reached: said so,
 * with the host, the status and where the redirect led (its host only), never followed.
 */
export function notTheApi(response: RawResponse, endpoint: string, origin: string): NetworkError | undefined {
  const type = firstHeader(response.headers, 'content-type')?.split(';')[0]?.trim().toLowerCase();
  let what: string;
  if (response.status >= 300 && response.status < 400) {
    const location = firstHeader(response.headers, 'location');
    what = `a redirect${location === undefined ? '' : ` to ${hostOf(location, origin)}`}, not followed, where the API answers JSON`;
  } else if (type === 'text/html' || type === 'application/xhtml+xml') {
    what = `an HTML page (${type}), not the API's JSON`;
  } else {
    return undefined;
  }
  const outage: Outage = {
    service: 'the API',
    host: new URL(origin).host,
    attempts: response.attempts ?? 1,
    lastStatus: response.status,
    lastError: `${endpoint}: ${what}; a captive portal or proxy on the way, or a --base-url that is not the API's root? Check the network and the base URL`,
  };
  return new NetworkError(outageMessage(outage), outageHints(outage));
}

/** The host of a URL the server sent, for messages: never its path or query (a token may be there). */
function hostOf(location: string, origin: string): string {
  try {
    return new URL(location, origin).host || 'an address without a host';
  } catch {
    return 'an unreadable address';
  }
}

/** The stop signal's reason as the interruption it is (exit 130/143), when a signal stopped the run. */
export function interruptionOf(signal: AbortSignal | undefined): InterruptedError | undefined {
  const reason: unknown = signal?.aborted ? signal.reason : undefined;
  return reason === 'SIGINT' || reason === 'SIGTERM' ? new InterruptedError(reason) : undefined;
}

/**
 * Whether the server may have charged an answered request: a success, or a 4xx (the spec does not say
 * a failed request is free). Not a 429, which says the bucket is empty, nor a 5xx, the server failing
 * to serve it; the server's own remaining still counts either when it fell.
 */
export function mayBeCharged(status: number): boolean {
  return status < 500 && status !== 429;
}
