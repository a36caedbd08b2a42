// Delivery of alert events, apart from the rules: a JSON POST per event to the alert URL (retried
// with backoff on network errors and 5xx) and one run of the alert command with the events as JSON
// lines on its stdin. Both share one deadline, so a receiver that hangs costs the run at most that
// long; nothing here throws: what was not delivered is reported. Neither carries the API key: the
// POST has no header but its content type, and the command's environment has no GEX_API_KEY.
import { spawn } from 'node:child_process';
import { request } from 'undici';
import { decide, retryPolicy, sleep, type AttemptOutcome, type RetryPolicy } from '../api/retry.js';
import { errorMessage } from '../core/errors.js';
import type { AlertEvent } from './rules.js';

export interface AlertSinks {
  url?: string;
  cmd?: string;
  /** The longest the deliveries may take in all, in milliseconds. */
  timeoutMs: number;
  /** The retry policy of each POST (tests shorten it). */
  retry?: Partial<RetryPolicy>;
}

export interface UrlDelivery {
  /** The URL without user info, query or fragment (never printed with credentials). */
  target: string;
  delivered: number;
  /** Events not delivered, each with its last error and the attempts made. */
  failed: { timestamp_utc: string; rule: string; attempts: number; error: string }[];
}

export interface CmdDelivery {
  command: string;
  /** The command's exit code; null when it did not end by itself (killed at the deadline, or not started). */
  exit_code: number | null;
  delivered: boolean;
  error?: string;
}

export interface Delivery {
  url?: UrlDelivery;
  cmd?: CmdDelivery;
}

/** POST attempts per event unless told otherwise: the first and three retries, 250 ms doubling. */
const ALERT_RETRY: Partial<RetryPolicy> = { maxAttempts: 4, baseDelayMs: 250, maxDelayMs: 2000 };

/**
 * The URL as it may be shown in a run's summary (and so in cron logs): the origin only. A webhook's
 * path or query is often its secret (Slack's and most chat hooks carry their token there).
 */
export function shownUrl(url: string): string {
  const parsed = new URL(url);
  return parsed.pathname === '/' && parsed.search === '' ? parsed.origin : `${parsed.origin}/…`;
}

/** Sends the events to every sink given, within the deadline; never throws. */
export async function deliver(events: readonly AlertEvent[], sinks: AlertSinks): Promise<Delivery> {
  const deadline = AbortSignal.timeout(sinks.timeoutMs);
  const [url, cmd] = await Promise.all([
    sinks.url === undefined ? undefined : postAll(events, sinks.url, retryPolicy({ ...ALERT_RETRY, ...sinks.retry }), deadline),
    sinks.cmd === undefined ? undefined : runCommand(events, sinks.cmd, deadline),
  ]);
  return { ...(url ? { url } : {}), ...(cmd ? { cmd } : {}) };
}

async function postAll(events: readonly AlertEvent[], url: string, policy: RetryPolicy, deadline: AbortSignal): Promise<UrlDelivery> {
  const report: UrlDelivery = { target: shownUrl(url), delivered: 0, failed: [] };
  // One after another, so a receiver gets them in time order.
  for (const event of events) {
    const outcome = await postOne(event, url, policy, deadline);
    if (outcome.error === undefined) report.delivered += 1;
    else report.failed.push({ timestamp_utc: event.timestamp_utc, rule: event.rule, attempts: outcome.attempts, error: outcome.error });
  }
  return report;
}

async function postOne(event: AlertEvent, url: string, policy: RetryPolicy, deadline: AbortSignal): Promise<{ attempts: number; error?: string }> {
  const body = JSON.stringify(event);
  for (let attempt = 1; ; attempt += 1) {
    if (deadline.aborted) return { attempts: attempt - 1, error: 'not sent: the alert deadline (--alert-timeout) had passed' };
    const { outcome, error } = await postAttempt(url, body, deadline);
    if (error === undefined) return { attempts: attempt };
    const next = decide(policy, attempt, outcome);
    if (!next.retry) return { attempts: attempt, error };
    try {
      await sleep(next.delayMs, deadline);
    } catch {
      return { attempts: attempt, error: `${error}; then the alert deadline (--alert-timeout) passed` };
    }
  }
}

async function postAttempt(url: string, body: string, deadline: AbortSignal): Promise<{ outcome: AttemptOutcome; error?: string }> {
  try {
    const response = await request(url, {
      method: 'POST',
      // Only what the receiver needs: never the API key, never a cookie.
      headers: { 'content-type': 'application/json' },
      body,
      signal: deadline,
    });
    await response.body.dump();
    if (response.statusCode >= 200 && response.statusCode < 300) return { outcome: { kind: 'status', status: response.statusCode } };
    return { outcome: { kind: 'status', status: response.statusCode }, error: `HTTP ${response.statusCode}` };
  } catch (error) {
    const reason = deadline.aborted ? 'no answer before the alert deadline (--alert-timeout)' : errorMessage(error);
    return { outcome: { kind: 'network' }, error: reason };
  }
}

/** The environment of the alert command: the user's, without the API key. */
export function commandEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const { GEX_API_KEY: _key, ...rest } = env;
  return rest;
}

function runCommand(events: readonly AlertEvent[], command: string, deadline: AbortSignal): Promise<CmdDelivery | undefined> {
  if (events.length === 0) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    let stderr = '';
    let settled = false;
    const done = (result: CmdDelivery) => {
      if (settled) return;
      settled = true;
      deadline.removeEventListener('abort', onDeadline);
      resolve(result);
    };
    const child = spawn('/bin/sh', ['-c', command], { env: commandEnv(), stdio: ['pipe', 'ignore', 'pipe'] });
    const onDeadline = () => {
      child.kill('SIGTERM');
      done({ command, exit_code: null, delivered: false, error: 'still running at the alert deadline (--alert-timeout): stopped' });
    };
    deadline.addEventListener('abort', onDeadline, { once: true });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-500)));
    child.on('error', (error) => done({ command, exit_code: null, delivered: false, error: errorMessage(error) }));
    child.on('close', (code) => {
      const ok = code === 0;
      done({ command, exit_code: code, delivered: ok, ...(ok ? {} : { error: `exit code ${code}${stderr.trim() ? `: ${stderr.trim()}` : ''}` }) });
    });
    // A command that does not read its stdin closes the pipe: that is its business, not an error of ours.
    child.stdin.on('error', () => undefined);
    child.stdin.end(events.map((event) => JSON.stringify(event)).join('\n') + '\n');
  });
}
