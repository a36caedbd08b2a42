// The first stop signal is answered at once with what the run does now: which depends on the phase it
// is in (a paid download is finished, a load stops after the file in flight). A second signal aborts
// (src/cli/main.ts); what was paid is written down as it was spent (src/journal/spend-log.ts).
import { abortSignalName } from './run-outcome.js';
import type { SyncEvents } from './sync-types.js';

type Phase = Parameters<NonNullable<SyncEvents['phase']>>[0];

const WHAT_NOW: Record<Phase, string> = {
  coverage: 'stopping: nothing is listed or paid for from now on',
  manifests: 'stopping: no more manifest pages are asked for, nothing is paid for',
  plan: 'stopping before any file is paid for',
  download: 'stopping: no new file is paid for; the downloads in flight finish (their links are paid) and are kept',
  load: 'stopping after the file in flight',
  fill: 'stopping: no more /history/levels pages are asked for',
  capture: 'stopping after the snapshot in flight',
};

/** What the run says when a stop signal arrives in `phase` (pure). */
export function stopMessage(phase: Phase | undefined, signal: 'SIGINT' | 'SIGTERM'): string {
  const again = signal === 'SIGINT' ? 'Ctrl-C again to abort' : 'a second SIGTERM aborts';
  return `${WHAT_NOW[phase ?? 'coverage']}; ${again}`;
}

/** Events that follow the phase, and say stopMessage() the moment the signal aborts. */
export function announceStops(signal: AbortSignal, events: SyncEvents): { events: SyncEvents; dispose(): void } {
  let phase: Phase | undefined;
  const onAbort = () => events.stopping?.(stopMessage(phase, abortSignalName(signal)));
  signal.addEventListener('abort', onAbort, { once: true });
  return {
    events: {
      ...events,
      phase(name, detail) {
        phase = name;
        events.phase?.(name, detail);
      },
    },
    dispose: () => signal.removeEventListener('abort', onAbort),
  };
}
