#!/usr/bin/env node
// The entry point: the only place that exits; errors become exit codes in run.ts.
import { ExitCode } from '../core/errors.js';
import { stopSignal } from './context.js';
import { runGexwh } from './run.js';

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    const controller = stopSignal();
    // A second signal means "now": the user does not want to wait for the file in flight.
    if (controller.signal.aborted) process.exit(signal === 'SIGINT' ? ExitCode.sigint : ExitCode.sigterm);
    controller.abort(signal);
  });
}

process.exit(await runGexwh(process.argv));
