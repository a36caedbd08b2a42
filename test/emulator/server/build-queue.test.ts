import { describe, expect, it } from 'vitest';
import { pickBuild } from '../../../emulator/server/build-queue.js';

const queue = (...sessions: string[]) => sessions.map((session) => ({ session }));

describe('pickBuild: which queued file a free worker builds next', () => {
  it('takes a file of its own session first, wherever it waits in the queue', () => {
    expect(pickBuild(queue('d1', 'd2', 'd3', 'd2'), 'd2', new Set(['d1']))).toBe(1);
    expect(pickBuild(queue('d1', 'd3', 'd2'), 'd2', new Set())).toBe(2);
  });

  it('else the first file of a session no other worker is on', () => {
    // The session's other files stay for the worker that has its chains.
    expect(pickBuild(queue('d1', 'd1', 'd2', 'd3'), 'd9', new Set(['d1']))).toBe(2);
    expect(pickBuild(queue('d1', 'd1', 'd2', 'd3'), undefined, new Set(['d1', 'd2']))).toBe(3);
  });

  it('else the file that waits longest, so no file waits for ever', () => {
    expect(pickBuild(queue('d1', 'd2'), 'd9', new Set(['d1', 'd2']))).toBe(0);
    expect(pickBuild(queue('d1'), undefined, new Set())).toBe(0);
  });

  it('answers -1 for an empty queue', () => {
    expect(pickBuild([], 'd1', new Set(['d2']))).toBe(-1);
  });
});
