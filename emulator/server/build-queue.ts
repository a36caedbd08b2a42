// Which queued file build a free worker takes next. Each worker keeps the chains of the sessions it
// built last (its own market caches), and the three files of a session share those chains: built on
// one worker, a session's files cost about two thirds of what they cost built on different workers.
// So a worker takes its own session's files first, then a file of a
// session no other worker is on, and only then whatever waits longest.

export interface QueuedBuild {
  /** The session a file belongs to: exchange, symbol and date. */
  session: string;
}

/** The index in `queue` of the build a worker should take, or -1 when the queue is empty. */
export function pickBuild(queue: readonly QueuedBuild[], own: string | undefined, othersOwn: ReadonlySet<string>): number {
  if (queue.length === 0) return -1;
  if (own !== undefined) {
    const mine = queue.findIndex((item) => item.session === own);
    if (mine >= 0) return mine;
  }
  const free = queue.findIndex((item) => !othersOwn.has(item.session));
  return free >= 0 ? free : 0;
}
