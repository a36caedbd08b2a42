// Safety check of the presigned link a download's 302 points to, before anything is sent to it.
// The link is fetched without credentials, but it could still aim at a local file, another scheme or
// a plain-http host on the network; only https anywhere, or http to this machine, is accepted.
import { UnsafeResponseError } from '../core/errors.js';

/** Hosts that never leave this machine (plain http is allowed to them, for the emulator). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host === 'localhost' || host === '[::1]') return true;
  // The WHATWG URL parser already normalised IPv4 forms (127.1, 0x7f.1, ...) to dotted quads.
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Hosts a connection reaches this machine at, whatever the scheme: loopback (and `localhost.`), the
 * unspecified address (Linux connects 0.0.0.0 and `::` to itself) and IPv4-mapped forms of both.
 * A name that only resolves to this machine through DNS cannot be told from its text.
 */
export function reachesThisMachine(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (isLoopbackHost(host) || host === 'localhost.' || host === '[::]') return true;
  if (/^0\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)) return true;
  return /^\[::ffff:(7f[0-9a-f]{2}|0):[0-9a-f]{1,4}\]$/.test(host);
}

export interface LocationPolicy {
  /**
   * Plain http to this machine: only when the API itself is on loopback (the emulator, a local
   * proxy). A remote API has no business sending a client to a service on the user's own machine.
   */
  allowLoopbackHttp: boolean;
}

/** The policy that follows from the API base: loopback http links only from a loopback API. */
export function locationPolicyFor(apiBase: URL): LocationPolicy {
  return { allowLoopbackHttp: isLoopbackHost(apiBase.hostname) };
}

/**
 * Parse and check a Location header value: absolute URL, https (or http to a loopback host when the
 * policy allows it), no user info. Anything else throws UnsafeResponseError; the message never
 * repeats the link's query string (it carries the storage signature).
 */
export function checkFileLocation(value: string | undefined, endpoint: string, policy: LocationPolicy): URL {
  if (value === undefined || value.trim() === '') {
    throw new UnsafeResponseError(`${endpoint}: the redirect has no Location header`);
  }
  let url: URL;
  try {
    url = new URL(value); // no base: a relative reference fails here
  } catch {
    throw new UnsafeResponseError(`${endpoint}: the redirect Location is not an absolute URL`);
  }
  const where = `${url.protocol}//${url.host}`;
  if (url.username !== '' || url.password !== '') {
    throw new UnsafeResponseError(`${endpoint}: the redirect Location carries user info; refused`);
  }
  if (url.protocol === 'https:') return checkHttpsHost(url, endpoint, policy);
  if (url.protocol === 'http:') {
    const loopback = isLoopbackHost(url.hostname);
    if (loopback && policy.allowLoopbackHttp) return url;
    const why = loopback ? 'on this machine, from an API that is not on this machine' : 'on a non-loopback host';
    throw new UnsafeResponseError(`${endpoint}: the redirect goes to plain http ${why} (${where}); refused`, {
      allowed: policy.allowLoopbackHttp ? 'https, or http to 127.0.0.0/8, ::1, localhost' : 'https',
    });
  }
  throw new UnsafeResponseError(
    `${endpoint}: the redirect uses the scheme "${sanitizedScheme(url.protocol)}"; only https (or http to loopback from a loopback API) is allowed`,
  );
}

/** Encryption changes nothing here: a remote API must not aim the client at a service of this machine. */
function checkHttpsHost(url: URL, endpoint: string, policy: LocationPolicy): URL {
  if (policy.allowLoopbackHttp || !reachesThisMachine(url.hostname)) return url;
  throw new UnsafeResponseError(
    `${endpoint}: the redirect goes to this machine (${url.protocol}//${url.host}), from an API that is not on this machine; refused`,
    {
      allowed: 'https to a host that is not this machine',
    },
  );
}

/** Origin and path of a link, for messages (the query string holds the signature). */
export function describeLink(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/** A scheme is letters, digits, + - . by the URL parser; capped so a hostile one stays short. */
function sanitizedScheme(protocol: string): string {
  const scheme = protocol.slice(0, -1);
  return scheme.length > 20 ? `${scheme.slice(0, 20)}…` : scheme;
}
