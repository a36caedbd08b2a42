// The path of `gexwh api PATH`, made canonical before anything is decided about it: what is checked
// is what is sent. Percent-decoding, empty segments, `.` and `..` are resolved here, and the path is
// sent again with each segment encoded, so a server that decodes or normalises differently cannot
// be reached on a path the checks did not see. The credit guard reads the segments fully decoded and
// lower-cased, so `/History/%66iles/...` or `%2566iles` costs a credit in its eyes too.
import { UsageError } from '../core/errors.js';

export const API_PREFIX = '/api/v1';

export interface RawApiPath {
  /** After /api/v1, each segment encoded: the path sent. */
  path: string;
  /** The same segments fully percent-decoded and lower-cased: the path the guards judge. */
  judged: string[];
  /** Parameters written after `?` in the path. */
  query: Record<string, string>;
}

const MAX_DECODE_ROUNDS = 5;

export function canonicalRawPath(rawPath: string): RawApiPath {
  const trimmed = rawPath.trim();
  if (!trimmed.startsWith('/') || trimmed.startsWith('//')) {
    throw new UsageError(`API path must start with a single "/", e.g. /me or /levels/deribit/BTC; got "${rawPath}"`);
  }
  const withoutFragment = trimmed.split('#', 1)[0]!;
  const at = withoutFragment.indexOf('?');
  const pathPart = at < 0 ? withoutFragment : withoutFragment.slice(0, at);
  const query = Object.fromEntries(new URLSearchParams(at < 0 ? '' : withoutFragment.slice(at + 1)).entries());

  const segments = decodeOnce(pathPart, rawPath).split('/');
  const prefix = API_PREFIX.split('/').filter((s) => s !== '');
  const written = segments.filter((s) => s !== '');
  const hasPrefix = prefix.every((p, i) => written[i]?.toLowerCase() === p);
  const full = resolveDots(hasPrefix ? segments : [...prefix, ...segments], rawPath);
  if (!prefix.every((p, i) => full[i]?.toLowerCase() === p)) throw leaves(rawPath);
  const rest = full.slice(prefix.length);
  // A server decoding twice would see `%252e%252e` as `..` and `%252F` as `/`: judge that reading too.
  const judged = resolveDots([...prefix, ...rest.map(decodeFully).join('/').split('/')], rawPath).map((s) => s.toLowerCase());
  if (!prefix.every((p, i) => judged[i] === p)) throw leaves(rawPath);
  return { path: `/${rest.map((s) => encodeURIComponent(s)).join('/')}`, judged: judged.slice(prefix.length), query };
}

function leaves(rawPath: string): UsageError {
  return new UsageError(`API path leaves ${API_PREFIX}: "${rawPath}"; only paths under it are allowed, e.g. /me or /levels/deribit/BTC`);
}

/**
 * Whether the path would fetch a file link (one credit each): /history/files/EXCHANGE/SYMBOL/DATE/KIND,
 * or anything longer under /history/files that a lenient server could route there.
 */
export function costsFileCredit(judged: readonly string[]): boolean {
  return judged[0] === 'history' && judged[1] === 'files' && judged.length >= 6;
}

function decodeOnce(text: string, rawPath: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new UsageError(`API path has a malformed percent-encoding: "${rawPath}"`);
  }
}

function decodeFully(segment: string): string {
  let text = segment;
  for (let round = 0; round < MAX_DECODE_ROUNDS; round++) {
    let next: string;
    try {
      next = decodeURIComponent(text);
    } catch {
      return text;
    }
    if (next === text) return text;
    text = next;
  }
  return text;
}

/** Drops empty and `.` segments and applies `..`; climbing above the root is refused. */
function resolveDots(segments: readonly string[], rawPath: string): string[] {
  const out: string[] = [];
  for (const segment of segments) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (out.length === 0) throw leaves(rawPath);
      out.pop();
      continue;
    }
    out.push(segment);
  }
  return out;
}
