// `gexwh doctor`: is this machine ready for a nightly sync? Key, plan, quota, clock, warehouse, lock,
// archive, disk and config file, each with a verdict and a fix. Exit 0 only when every check passes.
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { fail, pass, type Check } from '../../doctor/checks.js';
import { ChecksFailedError, GexwhError, UntrustedConfigError } from '../../core/errors.js';
import { stopSignal } from '../context.js';
import { createOutput, formatTable } from '../output.js';
import { DEFAULT_CONFIG_PATH, readApiKey, resolveGlobals, type GlobalFlags, type GlobalSettings } from '../settings.js';

export function registerDoctor(program: Command): void {
  program
    .command('doctor')
    .description('check the key, plan, quota, clock, warehouse, lock, archive, disk and config file; exit 0 only when all pass')
    .action(async (_flags: object, command: Command) => {
      const flags = command.optsWithGlobals<GlobalFlags>();
      const { settings, config } = settingsAndConfigCheck(flags);
      const out = createOutput(settings);
      const { runDoctor } = await import('../../doctor/run.js');
      const report = await runDoctor({
        db: settings.db,
        archive: settings.archive,
        baseUrl: settings.baseUrl,
        apiKey: keyOf(settings),
        config,
        signal: stopSignal().signal,
      });
      const failed = report.checks.filter((c) => !c.ok);
      const table = () => formatTable(report.checks.map((c) => ({ check: c.name, verdict: c.ok ? 'ok' : 'FAIL', detail: c.detail, fix: c.fix ?? '' })));
      if (failed.length === 0) return out.result(report, table);
      // Under --json the checks travel in the error object (one JSON document on stdout).
      if (!settings.json) process.stdout.write(`${table()}\n`);
      throw new ChecksFailedError(`${failed.length} of ${report.checks.length} checks failed: ${failed.map((c) => c.name).join(', ')}`, {
        checks: report.checks,
      });
    });
}

/** The settings, even from a broken config file (then its defaults), and the config file's verdict. */
function settingsAndConfigCheck(flags: GlobalFlags): { settings: GlobalSettings; config: Check } {
  try {
    const settings = resolveGlobals(flags);
    const which =
      settings.configPath === undefined
        ? `no ${DEFAULT_CONFIG_PATH} here or in a parent folder (defaults apply)`
        : settings.configFound === 'named'
          ? `using ${settings.configPath} (named by --config), valid`
          : `using ${settings.configPath} (found upward; yours, writable by you alone), valid`;
    return { settings, config: pass('config', `${which}; warehouse ${resolve(settings.db)}, archive ${resolve(settings.archive)}`) };
  } catch (error) {
    const message = error instanceof GexwhError ? error.message : String(error);
    const none = { path: undefined, values: {} };
    let settings: GlobalSettings;
    try {
      settings = resolveGlobals(flags, process.env, none);
    } catch {
      settings = resolveGlobals({ ...flags, baseUrl: undefined }, { ...process.env, GEX_BASE_URL: undefined }, none);
    }
    // A config another user controls is flagged with its own fix; its values are not used.
    const fix =
      error instanceof UntrustedConfigError
        ? `${String(error.hints.fix)}, or name it with --config to use it anyway`
        : 'fix the field named above (gexwh sync --help lists the config keys)';
    return { settings, config: fail('config', message, fix) };
  }
}

function keyOf(settings: GlobalSettings): { key: string } | { problem: string } {
  try {
    return { key: readApiKey(settings) };
  } catch (error) {
    return { problem: error instanceof Error ? error.message : String(error) };
  }
}
