// The verdicts of `gexwh doctor`, as pure functions of what was observed: each check passes or
// fails with what it saw and, when it fails, the fix.
import { formatBytes } from '../core/sizes.js';
import { formatInstant } from '../time/dates.js';

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
  fix: string | null;
}

export const pass = (name: string, detail: string): Check => ({ name, ok: true, detail, fix: null });
export const fail = (name: string, detail: string, fix: string): Check => ({ name, ok: false, detail, fix });

/** A skew past this breaks session boundaries and quota resets seen from this machine. */
export const MAX_CLOCK_SKEW_MS = 30_000;

/**
 * The machine clock against the server's: the server stamped its answer between the request's send
 * and receipt, so its clock is compared with the midpoint, and the round trip bounds the error.
 */
export function clockCheck(sentMs: number, receivedMs: number, serverIso: string): Check {
  const serverMs = Date.parse(serverIso);
  if (!Number.isFinite(serverMs)) return fail('clock', `the API sent no usable time (${serverIso})`, 'retry later; if it persists the API changed');
  const skewMs = (sentMs + receivedMs) / 2 - serverMs;
  const detail = `machine ${skewMs >= 0 ? 'ahead of' : 'behind'} the API by ${(Math.abs(skewMs) / 1000).toFixed(1)} s (round trip ${receivedMs - sentMs} ms)`;
  if (Math.abs(skewMs) - (receivedMs - sentMs) / 2 > MAX_CLOCK_SKEW_MS) {
    return fail('clock', detail, 'synchronise the clock (e.g. enable NTP: timedatectl set-ntp true)');
  }
  return pass('clock', detail);
}

export interface Bucket {
  limit: number;
  remaining: number | null;
  reset: string;
}

/** Quota left: fails when either bucket is used up today (0 limit = unlimited). */
export function quotaCheck(requests: Bucket, files: Bucket): Check {
  const show = (b: Bucket) => (b.limit === 0 ? 'unlimited' : `${b.remaining ?? '?'} of ${b.limit} left`);
  const detail = `requests ${show(requests)}, file credits ${show(files)}, reset ${formatInstant(files.reset)}`;
  const out = (b: Bucket) => b.limit !== 0 && b.remaining !== null && b.remaining <= 0;
  if (out(requests) || out(files)) return fail('quota', detail, `wait for the reset at ${formatInstant(files.reset)} (or raise the plan)`);
  return pass('quota', detail);
}

/** What the next sync plans, as `gexwh plan` counts it (the reloads and the rest when the planner said). */
export interface PlannedTotals {
  files: number;
  bytes: number;
  toReload?: number;
  deferred?: number;
  alreadyLoaded?: number;
}

/** Free disk against what the next night's sync would download. */
export function diskCheck(freeBytes: number, planned: PlannedTotals): Check {
  const rest =
    planned.toReload === undefined
      ? ''
      : `; ${planned.toReload} to load from the archive, ${planned.deferred ?? 0} deferred, ${planned.alreadyLoaded ?? 0} already loaded (as gexwh plan counts them from the manifests last listed)`;
  const detail = `${formatBytes(freeBytes)} free; the next sync plans ${planned.files} file(s), ${formatBytes(planned.bytes)}${rest}`;
  // Room for the files and their temp copies while they download.
  if (freeBytes < planned.bytes * 1.1) return fail('disk', detail, 'free disk space for the archive, or lower --max-credits');
  return pass('disk', detail);
}
