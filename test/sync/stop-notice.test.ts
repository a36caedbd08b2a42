// What the first stop signal says, per phase, the moment it arrives.
import { describe, expect, it } from 'vitest';
import { announceStops, stopMessage } from '../../src/sync/stop-notice.js';

describe('the answer to a stop signal', () => {
  it('says what happens now in each phase, and how to abort', () => {
    expect(stopMessage('load', 'SIGINT')).toBe('stopping after the file in flight; Ctrl-C again to abort');
    expect(stopMessage('download', 'SIGINT')).toBe(
      'stopping: no new file is paid for; the downloads in flight finish (their links are paid) and are kept; Ctrl-C again to abort',
    );
    expect(stopMessage('load', 'SIGTERM')).toBe('stopping after the file in flight; a second SIGTERM aborts');
    expect(stopMessage(undefined, 'SIGINT')).toMatch(/^stopping: nothing is listed or paid for from now on/);
  });

  it('is said once, at the abort, for the phase the run is in; events still reach the caller', () => {
    const said: string[] = [];
    const phases: string[] = [];
    const controller = new AbortController();
    const { events, dispose } = announceStops(controller.signal, { phase: (name) => phases.push(name), stopping: (message) => said.push(message) });
    events.phase?.('download');
    events.phase?.('load');
    expect(said).toEqual([]);
    controller.abort('SIGTERM');
    controller.abort('SIGINT');
    expect(said).toEqual(['stopping after the file in flight; a second SIGTERM aborts']);
    expect(phases).toEqual(['download', 'load']);
    dispose();
  });
});
