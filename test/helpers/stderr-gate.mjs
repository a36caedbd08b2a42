// TEST HOOK for the built CLI, never part of gexwh. A test that signals the CLI at a moment it
// announces (the load starting, the first signal answered) must not race the CLI past that moment
// on a loaded machine: started with `node --import <this file>` and GEXWH_TEST_STDERR_GATE=<regex>,
// the process stops right after each stderr write the pattern matches (stderr to a pipe is written
// synchronously, so the test has the line) until the test writes one byte to its stdin. While it
// waits nothing of it runs: no timer, no I/O callback, no signal handler; a signal the test sends
// meanwhile is handled at the first turn of the event loop after the release, long before a load of
// many files could finish. The product carries no hook and reads no test variable.
import { readSync } from 'node:fs';

export const GATE_VARIABLE = 'GEXWH_TEST_STDERR_GATE';

/** Blocks until one byte (or the end) arrives on stdin; a non-blocking stdin is polled every 2 ms. */
function waitForByte() {
  const byte = Buffer.alloc(1);
  const nap = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      readSync(0, byte, 0, 1, null);
      return;
    } catch (error) {
      if (error.code !== 'EAGAIN') throw error;
      Atomics.wait(nap, 0, 0, 2);
    }
  }
}

const source = process.env[GATE_VARIABLE];
if (source !== undefined && source !== '') {
  const pattern = new RegExp(source, 'm');
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = (chunk, ...rest) => {
    const written = write(chunk, ...rest);
    if (pattern.test(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'))) waitForByte();
    return written;
  };
}
