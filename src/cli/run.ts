// One run of gexwh on an argv: parse, run the command, map any error to its exit code and message.
// It never exits and installs no signal handler (main.ts, the binary, does both), so tests can run
// the same path in-process.
import { CommanderError } from 'commander';
import { ExitCode, exitCodeOf, GexwhError, NoWarehouseError, PAID_FILES_KEPT, UsageError, usageErrorOfFs } from '../core/errors.js';
import { describeError, errorJson, forgetResult, jsonReplacer, wasResultWritten } from './output.js';
import { buildProgram } from './program.js';
import { escapeJson } from './terminal.js';
import { rememberSettings, warehouseSearchHints } from './warehouse-search.js';

/** `argv` as Node gives it (node, script, args…); resolves to the exit code. */
export async function runGexwh(argv: string[]): Promise<number> {
  forgetResult();
  rememberSettings(undefined);
  const program = buildProgram();
  let command: string | undefined;
  program.hook('preAction', (_root, action) => {
    command = action.name();
  });
  // Under --json a failure is also one JSON object on stdout, for scripts; the text stays on stderr.
  const json = argv.includes('--json');
  try {
    await program.parseAsync(argv);
    return ExitCode.ok;
  } catch (thrown) {
    if (thrown instanceof CommanderError) {
      // help and version end here with code 0; commander already printed its message.
      if (thrown.exitCode === 0) return ExitCode.ok;
      if (json) printJsonError({ error: { code: 'usage', message: thrown.message.replace(/^error: /, ''), hint: null, exitCode: ExitCode.usage } });
      return ExitCode.usage;
    }
    const error = withPaidFilesKept(withSearch(usageErrorOfFs(thrown) ?? thrown), command);
    const verbose = argv.includes('--verbose');
    process.stderr.write(`${describeError(error, verbose)}\n`);
    if (json && !wasResultWritten()) printJsonError(errorJson(error));
    return exitCodeOf(error);
  }
}

/** A missing warehouse names where the command looked: what chose the path, and the config file search. */
function withSearch(error: unknown): unknown {
  if (!(error instanceof NoWarehouseError)) return error;
  return new UsageError(error.message, { ...error.hints, ...warehouseSearchHints() }, { cause: error });
}

/** The commands that buy files (and archive and record each as it lands). */
const PAYING_COMMANDS = new Set(['sync', 'load', 'demo']);

/** An outage stopping a command that pays for files says what a rerun finds; other commands bought nothing. */
function withPaidFilesKept(error: unknown, command: string | undefined): unknown {
  if (!(error instanceof GexwhError) || exitCodeOf(error) !== ExitCode.unreachable) return error;
  if (command === undefined || !PAYING_COMMANDS.has(command)) return error;
  error.message = `${error.message}. ${PAID_FILES_KEPT}`;
  return error;
}

function printJsonError(value: ReturnType<typeof errorJson>): void {
  // The message may quote the server or the data: C1 controls as \u escapes like every JSON gexwh prints.
  process.stdout.write(`${escapeJson(JSON.stringify(value, jsonReplacer))}\n`);
}
