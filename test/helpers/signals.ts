// Signals sent to the built CLI at the moments it announces on stderr, without racing it: the child
// runs with the stderr gate (stderr-gate.mjs), so it stands still right after each announcing line
// while the test sends that step's signal, and goes on only once released. On a loaded machine the
// child cannot finish the phase between the line and the signal, as it could with a plain listener.
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { CliOptions } from './cli.js';
import { GATE_VARIABLE } from './stderr-gate.mjs';

const HOOK = fileURLToPath(new URL('./stderr-gate.mjs', import.meta.url));

export interface SignalStep {
  /** The announcement (one stderr line) the step waits for. */
  at: RegExp;
  /** Sent while the child stands at the line; none: the child is only released. */
  signal?: NodeJS.Signals;
}

/**
 * runCli options that play `steps` in order: at each step's line the child stops, gets the step's
 * signal, and is released. Lines of later steps seen early wait their turn; a line of no step is not
 * gated. A child killed at a step is never released (it is gone).
 */
export function signalsAt(steps: readonly SignalStep[], env: Record<string, string | undefined> = {}): Required<Pick<CliOptions, 'env' | 'stdin' | 'onSpawn'>> {
  const gated = steps.map((s) => `(?:${s.at.source})`).join('|');
  return {
    env: { ...env, NODE_OPTIONS: `--import "${HOOK}"`, [GATE_VARIABLE]: gated },
    stdin: 'pipe',
    onSpawn(child: ChildProcess) {
      let step = 0;
      let seen = '';
      child.stdin!.on('error', () => undefined); // the child may be gone when released
      child.stderr!.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        // Every gated line stops the child once: release it once per line, signalling at the steps.
        for (;;) {
          const next = steps[step];
          if (next === undefined) return;
          const match = new RegExp(next.at.source, 'm').exec(seen);
          if (match === null) return;
          seen = seen.slice(match.index + match[0].length);
          step++;
          if (next.signal !== undefined) child.kill(next.signal);
          if (next.signal === 'SIGKILL') return;
          child.stdin!.write('x');
          // Past the last step the gate stays open: stdin at its end releases every later line at once.
          if (step === steps.length) child.stdin!.end();
        }
      });
    },
  };
}
