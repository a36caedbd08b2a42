#!/usr/bin/env node
// The entry point: the only place that exits, and the one place errors become exit codes.
import { CommanderError } from 'commander';
import { ExitCode, exitCodeOf } from '../errors.js';
import { stopSignal } from './context.js';
import { describeError } from './output.js';
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
  try {
    await program.parseAsync(argv);
    return ExitCode.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // help and version end here with code 0; commander already printed its message.
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    const verbose = argv.includes('--verbose');
    process.stderr.write(`${describeError(error, verbose)}\n`);
    return exitCodeOf(error);
  }
}

process.exit(await main(process.argv));
