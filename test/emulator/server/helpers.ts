// Test helpers: an emulator on port 0 with small sizes and a frozen clock, and a tiny HTTP client
// that never follows redirects.

import { gunzipSync } from 'node:zlib';
import { startEmulator, type Emulator, type EmulatorOptions } from '../../../emulator/index.js';

/** Wednesday 2026-03-11 14:07 UTC: New York regular hours (10:07 EDT), crypto mid-session. */
export const NOW = '2026-03-11T14:07:00Z';

export function smallEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  return startEmulator({ now: NOW, days: 5, expirations: 3, strikes: 15, seed: 7, ...options });
}

export interface Answer {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON under test: keeps assertions short
  body: any;
  text: string;
}

export interface CallOptions {
  key?: string | null; // null: no key at all
  method?: string;
  headers?: Record<string, string>;
}

/** GET (or `method`) {baseUrl}/api/v1{path} with the pro key unless told otherwise. */
export async function call(em: Emulator, path: string, options: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  const key = options.key === undefined ? em.keys.pro : options.key;
  if (key !== null) headers['X-API-Key'] = key;
  const res = await fetch(`${em.baseUrl}/api/v1${path}`, { method: options.method ?? 'GET', headers, redirect: 'manual' });
  const text = await res.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body, text };
}

/** Follows a download's 302 to the storage origin without credentials; returns the raw bytes. */
export async function fetchLink(location: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const res = await fetch(location, { headers, redirect: 'manual' });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** Parses a gzip CSV file into objects keyed by header (all values as text). */
export function parseCsvGz(bytes: Buffer): Record<string, string>[] {
  const [header, ...lines] = gunzipSync(bytes).toString('utf8').trimEnd().split('\n');
  const names = (header ?? '').split(',');
  return lines.map((line) => {
    const cells = line.split(',');
    return Object.fromEntries(names.map((name, i) => [name, cells[i] ?? '']));
  });
}
