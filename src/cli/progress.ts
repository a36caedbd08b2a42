// Progress on a TTY (files, bytes, credits): one line on stderr, rewritten in place. Silent when
// stderr is not a terminal (cron) or with --quiet/--json.
import type { SyncEvents } from '../sync/run.js';
import type { CommandContext } from './context.js';
import { formatBytes } from './summary.js';

export interface Progress {
  events: SyncEvents;
  done(): void;
}

export function createProgress(ctx: CommandContext, dryRun: boolean): Progress {
  const warn = (message: string) => ctx.out.debug(`note: ${message}`);
  const live = process.stderr.isTTY === true && !ctx.out.quiet && !ctx.out.json && !dryRun;
  if (!live) {
    return { events: { phase: (name, detail) => ctx.out.debug(`${name}${detail ? `: ${detail}` : ''}`), warn }, done() {} };
  }
  let files = 0;
  let total = 0;
  let bytes = 0;
  let failed = 0;
  let drawn = false;
  const draw = () => {
    process.stderr.write(`\r\x1b[K  files ${files}/${total}  ${formatBytes(bytes)}  failed ${failed}`);
    drawn = true;
  };
  return {
    events: {
      phase(name, detail) {
        if (name === 'download') {
          total = Number.parseInt(detail ?? '0', 10) || 0;
          draw();
        } else if (drawn) {
          process.stderr.write(`\r\x1b[K  ${name}…`);
        }
      },
      file(event) {
        if (event.outcome === 'verified') files++;
        if (event.outcome === 'failed') failed++;
        bytes += event.bytes;
        draw();
      },
      warn,
    },
    done() {
      if (drawn) process.stderr.write('\r\x1b[K');
    },
  };
}
