#!/usr/bin/env node
// The entry point: the only place that exits, and the one place errors become exit codes.
import { CommanderError } from 'commander';
import { ExitCode, exitCodeOf } from '../core/errors.js';
import { stopSignal } from './context.js';
import { describeError, errorJson, jsonReplacer, wasResultWritten } from './output.js';
import { buildProgram } from './program.js';

async function main(argv: string[]): Promise<number> {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      const controller = stopSignal();
      // A second signal means "now": the user does not want to wait for the file in flight.
      if (controller.signal.aborted) process.exit(signal === 'SIGINT' ? ExitCode.sigint : ExitCode.sigterm);
      controller.abort(signal);
    });
  }
  const program = buildProgram();
  // Under --json a failure is also one JSON object on stdout, for scripts; the text stays on stderr.
  const json = argv.includes('--json');
  try {
    await program.parseAsync(argv);
    return ExitCode.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // help and version end here with code 0; commander already printed its message.
      if (error.exitCode === 0) return ExitCode.ok;
      if (json) printJsonError({ error: { code: 'usage', message: error.message.replace(/^error: /, ''), hint: null, exitCode: ExitCode.usage } });
      return ExitCode.usage;
    }
    const verbose = argv.includes('--verbose');
    process.stderr.write(`${describeError(error, verbose)}\n`);
    if (json && !wasResultWritten()) printJsonError(errorJson(error));
    return exitCodeOf(error);
  }
}

function printJsonError(value: ReturnType<typeof errorJson>): void {
  process.stdout.write(`${JSON.stringify(value, jsonReplacer)}\n`);
}

process.exit(await main(process.argv));
