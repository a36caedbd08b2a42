// The alerts of a sync or a capture, as the command sees them: nothing when no alert URL or command
// is set (or on a dry run); else the marks taken before the run, and after it the report that joins
// the run's result (`alerts` in its JSON, one line under its text). A failed delivery is a warning,
// never the run's exit code.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { AlertsReport, Marks } from '../alerts/after-run.js';
import { parseRules, type AlertSource } from '../alerts/rules.js';
import { ALERT_TIMEOUT_SECONDS } from './alert-options.js';
import type { CommandContext } from './context.js';

export interface AlertFlags {
  alertUrl?: string;
  alertCmd?: string;
  alertTimeout?: number;
  alertRules?: string[];
}

export interface RunAlerts {
  /** Evaluates the run's new captures and delivers their events; never throws. */
  after(): Promise<AlertsReport>;
}

/** Ready before the run starts (the marks are taken now), or undefined when the run sends no alert. */
export async function prepareAlerts(ctx: CommandContext, flags: AlertFlags, source: AlertSource, dryRun: boolean): Promise<RunAlerts | undefined> {
  // The rules are checked even when nothing would be sent: a typo is an error, not silence.
  const rules = parseRules(flags.alertRules);
  if (dryRun || (flags.alertUrl === undefined && flags.alertCmd === undefined)) return undefined;
  const { marksBefore, alertAfterRun } = await import('../alerts/after-run.js');
  const marks: Marks = await marksBefore(ctx.settings.db, source, existsSync(resolve(ctx.settings.db)));
  const sinks = {
    ...(flags.alertUrl !== undefined ? { url: flags.alertUrl } : {}),
    ...(flags.alertCmd !== undefined ? { cmd: flags.alertCmd } : {}),
    timeoutMs: (flags.alertTimeout ?? ALERT_TIMEOUT_SECONDS) * 1000,
  };
  return { after: () => alertAfterRun(ctx.settings.db, marks, rules, sinks) };
}

/** The run's result with its alerts: under `alerts` in the JSON, a line under the text; failures warned. */
export async function withAlerts<T extends object>(
  ctx: CommandContext,
  alerts: RunAlerts | undefined,
  result: T,
  text: (result: T) => string,
): Promise<{ value: T & { alerts?: AlertsReport }; text: () => string }> {
  if (alerts === undefined) return { value: result, text: () => text(result) };
  const { alertsLine } = await import('../alerts/after-run.js');
  const report = await alerts.after();
  const { url, cmd } = report.delivery;
  if (report.skipped || (url && url.failed.length > 0) || (cmd && !cmd.delivered)) ctx.out.warn(alertsLine(report));
  return { value: { ...result, alerts: report }, text: () => `${text(result)}\n${alertsLine(report)}` };
}
