// Alerts after a sync or a capture, on that run's new captures only: before the run, each held pair's
// latest capture time is noted (its mark); after it, the captures later than the mark are evaluated
// against the capture before them and the events delivered. A pair the warehouse did not hold before
// the run fires nothing (its first history is the past: `gexwh alerts` replays it), and a backfill of
// older sessions fires nothing (an alert is about now). Nothing here fails the run: a warehouse that
// cannot be read, a receiver that fails or hangs, all end up in the report.
import { errorMessage } from '../core/errors.js';
import { pairKey } from '../core/pairs.js';
import { openReader } from '../warehouse/open.js';
import { heldPairs, readMarks, readSeries } from './read.js';
import { evaluateSeries, type AlertEvent, type AlertRule, type AlertSource } from './rules.js';
import { deliver, type AlertSinks, type Delivery } from './send.js';

/** The marks taken before the run, or why there are none. */
export type Marks = { source: AlertSource; marks: Map<string, string> } | { source: AlertSource; unavailable: string };

/** What the run's JSON shows under `alerts`. */
export interface AlertsReport {
  source: AlertSource;
  rules: AlertRule[];
  /** Captures newer than their pair's mark. */
  captures_evaluated: number;
  events: AlertEvent[];
  delivery: Delivery;
  /** Why no rule was evaluated (the warehouse could not be read), when so. */
  skipped?: string;
}

/** Each held pair's latest capture before the run; a warehouse not there yet has none. */
export async function marksBefore(dbPath: string, source: AlertSource, exists: boolean): Promise<Marks> {
  if (!exists) return { source, marks: new Map() };
  try {
    const warehouse = await openReader(dbPath);
    try {
      return { source, marks: await readMarks(warehouse.connection, source) };
    } finally {
      warehouse.close();
    }
  } catch (error) {
    return { source, unavailable: `the warehouse could not be read before the run (${errorMessage(error)}): no alert this run` };
  }
}

/** The events of the run's new captures, delivered; never throws. */
export async function alertAfterRun(dbPath: string, before: Marks, rules: AlertRule[], sinks: AlertSinks): Promise<AlertsReport> {
  const report: AlertsReport = { source: before.source, rules, captures_evaluated: 0, events: [], delivery: {} };
  if ('unavailable' in before) return { ...report, skipped: before.unavailable };
  try {
    const warehouse = await openReader(dbPath);
    try {
      for (const pair of await heldPairs(warehouse.connection, before.source)) {
        const mark = before.marks.get(pairKey(pair));
        if (mark === undefined) continue;
        const series = await readSeries(warehouse.connection, before.source, pair, { after: mark });
        report.captures_evaluated += series.captures.length;
        report.events.push(...evaluateSeries(series.previous, series.captures, rules));
      }
    } finally {
      warehouse.close();
    }
  } catch (error) {
    return { ...report, skipped: `the warehouse could not be read after the run (${errorMessage(error)}): no alert this run` };
  }
  return { ...report, delivery: await deliver(report.events, sinks) };
}

/** One line for the run's text summary: how many events, where they went, what failed. */
export function alertsLine(report: AlertsReport): string {
  if (report.skipped) return `alerts: ${report.skipped}`;
  const parts = [`alerts: ${report.events.length} event(s) from ${report.captures_evaluated} new capture(s)`];
  const { url, cmd } = report.delivery;
  if (url) parts.push(`${url.target}: ${url.delivered} delivered${url.failed.length ? `, ${url.failed.length} NOT delivered (${url.failed[0]!.error})` : ''}`);
  if (cmd) parts.push(cmd.delivered ? 'alert command: done' : `alert command: NOT delivered (${cmd.error ?? 'failed'})`);
  return parts.join('; ');
}
