#!/usr/bin/env node
// The entry point: the only place that exits; errors become exit codes in run.ts.
import { ExitCode } from '../core/errors.js';
import { stopSignal } from './context.js';
import { runGexwh } from './run.js';

const SECOND_SIGNAL = (signal: string) =>
  `second ${signal}: stopped at once; every file paid so far is archived or listed in the archive's journal, and the next gexwh sync or gexwh load takes it up for 0 credits`;

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    const controller = stopSignal();
    // A second signal means "now": the user does not want to wait for the file in flight. Said on a
    // line of its own (a progress line may be on screen), with what is kept.
    if (controller.signal.aborted) {
      process.stderr.write(`${process.stderr.isTTY ? '\n' : ''}${SECOND_SIGNAL(signal)}\n`);
      process.exit(signal === 'SIGINT' ? ExitCode.sigint : ExitCode.sigterm);
    }
    controller.abort(signal);
  });
}

process.exit(await runGexwh(process.argv));
