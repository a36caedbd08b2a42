// Alerts after a sync and a capture, through the CLI (in process) against the emulator and real local
// HTTP receivers on port 0: the events of the run's new captures arrive as JSON POSTs, the same JSON
// `gexwh alerts` replays for those sessions, never with the API key; a receiver that fails is tried
// again; one that hangs costs the run only --alert-timeout (a hold the test releases, no sleep); the
// alert command gets the events as JSON lines on stdin, without the key in its environment. The
// run's JSON records what was and was not delivered, and its exit code stays the sync's.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_RETRY_POLICY } from '../../src/api/retry.js';
import type { AlertsReport } from '../../src/alerts/after-run.js';
import type { AlertEvent } from '../../src/alerts/rules.js';
import { shownUrl } from '../../src/alerts/send.js';
import { runCliInProcess, type CliResult } from '../helpers/cli.js';
import { gate, type Gate } from '../helpers/gate.js';
import { snapshotBench, type Bench, type BenchSnapshot } from '../helpers/sync.js';

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

interface Receiver {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/** A local HTTP receiver on port 0; `answer` decides each request's status (or holds it until a gate opens). */
async function startReceiver(answer: (n: number) => number | Gate = () => 200): Promise<Receiver> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const status = answer(received.length);
      if (typeof status === 'number') res.writeHead(status).end();
      else void status.until.then(() => res.writeHead(200).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/gex?channel=desk`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let snapshot: BenchSnapshot;

beforeAll(async () => {
  // The history up to 2026-03-09 is held before each test's sync, which then loads 2026-03-10: its captures are the new ones.
  // Seed 22: the emulator's market (which drifts smoothly) crosses the flip and changes regime on 2026-03-10.
  snapshot = await snapshotBench({ seed: 22 }, async (bench) => {
    await bench.sync({ exchange: 'deribit', symbol: 'BTC', until: '2026-03-09' });
  });
}, 180_000);

afterAll(async () => snapshot?.remove());

async function syncWithAlerts(bench: Bench, ...alertArgs: string[]): Promise<CliResult & { alerts: AlertsReport; json: Record<string, unknown> }> {
  const result = await runCliInProcess(
    [
      'sync',
      '--base-url',
      bench.emulator.baseUrl,
      '--db',
      bench.dbPath,
      '--archive',
      bench.archive,
      '--exchange',
      'deribit',
      '--symbol',
      'BTC',
      '--json',
      ...alertArgs,
    ],
    { env: { GEX_API_KEY: bench.emulator.keys.pro } },
  );
  const json = JSON.parse(result.stdout) as Record<string, unknown>;
  return { ...result, json, alerts: json.alerts as AlertsReport };
}

async function replayed(bench: Bench, from: string): Promise<AlertEvent[]> {
  const { code, stdout } = await runCliInProcess(['alerts', '--db', bench.dbPath, '--from', from, '--json']);
  expect(code).toBe(0);
  return (JSON.parse(stdout) as { events: AlertEvent[] }).events;
}

describe('alerts after a sync', () => {
  it('POSTs each event of the new captures as JSON, the same events gexwh alerts replays for them, and never the API key', async () => {
    const bench = await snapshot.start();
    const receiver = await startReceiver();
    try {
      const { code, alerts, json, stdout, stderr } = await syncWithAlerts(bench, '--alert-url', receiver.url);
      expect(code).toBe(0);
      // The hook's path and query may be its secret: the summary names the origin only.
      expect(stdout + stderr).not.toMatch(/hooks\/gex|channel=desk/);
      expect(json.files_loaded).toBe(3);
      const replay = await replayed(bench, '2026-03-10');
      expect(replay.length).toBeGreaterThan(0);
      expect(alerts.events).toEqual(replay);
      expect(alerts.captures_evaluated).toBe(96);
      expect(alerts.delivery.url).toEqual({ target: `${new URL(receiver.url).origin}/…`, delivered: replay.length, failed: [] });
      // One POST per event, in time order, the event's JSON as the body, to the URL as given.
      expect(receiver.received.map((r) => JSON.parse(r.body) as AlertEvent)).toEqual(replay);
      for (const request of receiver.received) {
        expect(request.method).toBe('POST');
        expect(request.url).toBe('/hooks/gex?channel=desk');
        expect(request.headers['content-type']).toBe('application/json');
        const sent = JSON.stringify(request.headers) + request.body;
        expect(sent).not.toContain(bench.emulator.keys.pro);
        expect(Object.keys(request.headers).filter((h) => /key|auth|cookie/i.test(h))).toEqual([]);
      }
    } finally {
      await receiver.close();
      await bench.close();
    }
  }, 120_000);

  it('a receiver that fails (two 503s) and then succeeds gets every event: the failures are retried', async () => {
    const bench = await snapshot.start();
    const receiver = await startReceiver((n) => (n <= 2 ? 503 : 200));
    try {
      const { code, alerts } = await syncWithAlerts(bench, '--alert-url', receiver.url, '--alert-rules', 'flip_cross');
      expect(code).toBe(0);
      expect(alerts.events.length).toBeGreaterThan(0);
      expect(alerts.delivery.url).toMatchObject({ delivered: alerts.events.length, failed: [] });
      // The first event was sent three times (two 503s), every other once.
      expect(receiver.received).toHaveLength(alerts.events.length + 2);
      expect(receiver.received.slice(0, 3).map((r) => r.body)).toEqual(Array(3).fill(JSON.stringify(alerts.events[0])));
    } finally {
      await receiver.close();
      await bench.close();
    }
  }, 120_000);

  it('a receiver that never succeeds: every event recorded as not delivered with its attempts and error, a warning, exit 0', async () => {
    const bench = await snapshot.start();
    const receiver = await startReceiver(() => 500);
    // Each retry's wait drawn as 0 (full jitter): the attempts and the errors are the claim here; the
    // backoff's length is test/api/retry's.
    const noJitter = vi.spyOn(DEFAULT_RETRY_POLICY, 'random').mockReturnValue(0);
    try {
      const { code, alerts, stderr } = await syncWithAlerts(bench, '--alert-url', receiver.url, '--alert-rules', 'regime_change', '--alert-timeout', '120');
      expect(code).toBe(0);
      expect(alerts.events.length).toBeGreaterThan(0);
      expect(alerts.delivery.url!.delivered).toBe(0);
      expect(alerts.delivery.url!.failed).toEqual(
        alerts.events.map((e) => ({ timestamp_utc: e.timestamp_utc, rule: 'regime_change', attempts: 4, error: 'HTTP 500' })),
      );
      expect(stderr).toMatch(
        /warning: alerts: \d+ event\(s\) from 96 new capture\(s\); http:\/\/127\.0\.0\.1:\d+\/…: 0 delivered, \d+ NOT delivered \(HTTP 500\)/,
      );
    } finally {
      noJitter.mockRestore();
      await receiver.close();
      await bench.close();
    }
  }, 120_000);

  it('a receiver that hangs: the sync finishes at --alert-timeout with its data loaded and the events recorded as not delivered', async () => {
    const bench = await snapshot.start();
    const hold = gate();
    const receiver = await startReceiver(() => hold);
    try {
      const { code, alerts, json } = await syncWithAlerts(bench, '--alert-url', receiver.url, '--alert-timeout', '0.5');
      expect(code).toBe(0);
      expect(json.files_loaded).toBe(3);
      expect(hold.opened).toBe(false);
      // The first POST is held (on a very slow machine the deadline may even come before it arrives); no other is sent.
      expect(receiver.received.length).toBeLessThanOrEqual(1);
      expect(alerts.delivery.url!.delivered).toBe(0);
      expect(alerts.delivery.url!.failed).toHaveLength(alerts.events.length);
      expect(alerts.delivery.url!.failed[0]!.error).toMatch(/no answer before the alert deadline \(--alert-timeout\)/);
      expect(alerts.delivery.url!.failed.at(-1)!.error).toMatch(/not sent: the alert deadline \(--alert-timeout\) had passed/);
    } finally {
      hold.open();
      await receiver.close();
      await bench.close();
    }
  }, 120_000);

  it('--alert-cmd gets the events as JSON lines on stdin in one run, without GEX_API_KEY in its environment', async () => {
    const bench = await snapshot.start();
    const lines = join(bench.dir, 'events.jsonl');
    const env = join(bench.dir, 'env.txt');
    try {
      const { code, alerts } = await syncWithAlerts(
        bench,
        '--alert-cmd',
        `cat >> '${lines}'; env > '${env}'`,
        '--alert-rules',
        'flip_cross,nearest_wall_cross',
      );
      expect(code).toBe(0);
      expect(alerts.delivery.cmd).toMatchObject({ exit_code: 0, delivered: true });
      const sent = readFileSync(lines, 'utf8').trimEnd().split('\n');
      expect(sent.map((line) => JSON.parse(line) as AlertEvent)).toEqual(alerts.events);
      expect(new Set(alerts.events.map((e) => e.rule))).toEqual(new Set(['flip_cross', 'nearest_wall_cross']));
      expect(readFileSync(env, 'utf8')).not.toContain(bench.emulator.keys.pro);
      expect(readFileSync(env, 'utf8')).not.toContain('GEX_API_KEY');
    } finally {
      await bench.close();
    }
  }, 120_000);

  it('a sync that loads nothing new alerts on nothing; a failing command is recorded, not the exit code', async () => {
    const bench = await snapshot.start();
    const marker = join(bench.dir, 'ran');
    try {
      const first = await syncWithAlerts(bench, '--until', '2026-03-09', '--alert-cmd', `touch '${marker}'`);
      expect(first.code).toBe(0);
      expect(first.alerts).toMatchObject({ captures_evaluated: 0, events: [], delivery: {} });
      expect(existsSync(marker)).toBe(false);
      const second = await syncWithAlerts(bench, '--alert-cmd', 'echo broken >&2; exit 3');
      expect(second.code).toBe(0);
      expect(second.alerts.delivery.cmd).toMatchObject({ exit_code: 3, delivered: false, error: 'exit code 3: broken' });
    } finally {
      await bench.close();
    }
  }, 120_000);
});

describe('alert settings from the config file', () => {
  it('alertCmd and alertRules in the config file are used as the flags are', async () => {
    const bench = await snapshot.start();
    const lines = join(bench.dir, 'config-events.jsonl');
    const config = join(bench.dir, 'gexwh.config.json');
    writeFileSync(config, JSON.stringify({ alertCmd: `cat > '${lines}'`, alertRules: ['regime_change'], alertTimeout: 30 }));
    try {
      const { code, alerts } = await syncWithAlerts(bench, '--config', config);
      expect(code).toBe(0);
      expect(alerts.rules).toEqual(['regime_change']);
      expect(alerts.events.length).toBeGreaterThan(0);
      expect(
        readFileSync(lines, 'utf8')
          .trimEnd()
          .split('\n')
          .map((line) => JSON.parse(line) as AlertEvent),
      ).toEqual(alerts.events);
    } finally {
      await bench.close();
    }
  }, 120_000);

  it.each([
    [{ alertUrl: 'ftp://example.com/x' }, /alertUrl.*an alert URL is http or https, not ftp/],
    [{ alertTimeout: 0 }, /alertTimeout/],
    [{ alertUrl: 'http://127.0.0.1:9/x', alertRules: ['walls'] }, /unknown rule walls/],
  ])('a bad config value %j is exit 2 naming the field, before anything is spent', async (values, message) => {
    const dir = mkdtempSync(join(tmpdir(), 'gexwh-alert-config-'));
    try {
      const config = join(dir, 'gexwh.config.json');
      writeFileSync(config, JSON.stringify(values));
      const { code, stderr } = await runCliInProcess(['sync', '--config', config, '--base-url', 'http://127.0.0.1:9', '--db', join(dir, 'gex.duckdb')], {
        env: { GEX_API_KEY: 'gex_never_used' },
      });
      expect(code).toBe(2);
      expect(stderr).toMatch(message);
      expect(existsSync(join(dir, 'gex.duckdb'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('alert options', () => {
  it.each([
    [['--alert-url', 'ftp://example.com/x'], /an alert URL is http or https, not ftp/],
    [['--alert-url', 'https://user:secret@example.com/x'], /carries no user name or password/],
    [['--alert-url', 'not a url'], /is not a URL/],
    [['--alert-timeout', '0'], /expected seconds above 0, at most 600/],
    [['--alert-rules', 'flip'], /unknown rule flip/],
  ])('%j is exit 2 naming what is allowed', async (args, message) => {
    const { code, stderr } = await runCliInProcess(['sync', '--base-url', 'http://127.0.0.1:9', ...args]);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
  });

  it("a run's summary names the alert URL by its origin only: a hook's path or query is often its secret", () => {
    expect(shownUrl('https://hooks.slack.com/services/T000/B000/XXXXSECRET')).toBe('https://hooks.slack.com/…');
    expect(shownUrl('https://hooks.example.com/?token=T0KEN')).toBe('https://hooks.example.com/…');
    expect(shownUrl('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080');
  });
});
