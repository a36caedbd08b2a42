// stdout as a TextSink: waits while the reader is behind (so a large result never piles up in memory),
// stops waiting when the statement is cancelled, and reports a reader that went away (`| head`) so
// the command stops reading the result instead of dying on EPIPE.
import type { TextSink } from './query-output.js';

let readerGone = false;
let watching = false;

function watchStdout(): void {
  if (watching) return;
  watching = true;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    readerGone = true;
  });
}

export function stdoutSink(cancelled: AbortSignal): TextSink {
  watchStdout();
  return {
    async write(text) {
      if (readerGone) return false;
      if (!process.stdout.write(text)) await drained(cancelled);
      return !readerGone;
    },
  };
}

function drained(cancelled: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      process.stdout.off('drain', done);
      process.stdout.off('error', done);
      cancelled.removeEventListener('abort', done);
      resolve();
    };
    process.stdout.once('drain', done);
    process.stdout.once('error', done);
    cancelled.addEventListener('abort', done, { once: true });
  });
}
