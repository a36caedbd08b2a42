// Progress on a TTY: one line on stderr, rewritten in place, for every phase that lasts more than a
// second: what, n of N where the phase knows N, rate and ETA; when the phase ends its line is drawn
// once more with the final count and ended with a newline, so it stays on screen whole. When stderr
// is a pipe, each phase that lasted more than a second writes that final line once (one line per
// stage). Nothing with --quiet or --json; stdout is never touched.
import type { SyncEvents } from '../sync/run.js';
import type { CommandContext } from './context.js';
import { formatBytes } from './summary.js';

export interface Progress {
  events: SyncEvents;
  done(): void;
}

/**
 * A phase's line is first drawn after this long: short phases stay silent. GEXWH_PROGRESS_AFTER_MS
 * changes it (0: from the first update), for the terminal tests and for whoever wants to see more.
 */
const SHOW_AFTER_MS = () => showAfterMs(process.env.GEXWH_PROGRESS_AFTER_MS);
const REDRAW_MS = 250;

const PHASE_WORDS = {
  coverage: 'reading coverage',
  manifests: 'listing manifests',
  plan: 'planning',
  download: 'downloading files',
  load: 'loading into the warehouse',
  fill: 'filling levels from /history/levels',
  capture: 'capturing live snapshots',
  export: 'exporting files',
  rebuild: 'rebuilding from the archive',
  verify: 'verifying the archive',
  report: 'drawing the report',
} as const;
export type Phase = keyof typeof PHASE_WORDS;

export interface PhaseState {
  phase: Phase;
  startedMs: number;
  done: number;
  total: number | undefined;
  /** The total is an estimate (shown as ~N; never below what is done). */
  estimated?: boolean;
  /** What is counted, when not obvious from the phase ('files'). */
  unit?: string;
  bytes: number;
  /** The bytes the whole phase will move, when known: the ETA then follows bytes, not items (files differ in size). */
  totalBytes?: number;
  failed: number;
}

function showAfterMs(value: string | undefined): number {
  const ms = value === undefined ? Number.NaN : Number(value);
  return Number.isInteger(ms) && ms >= 0 ? ms : 1000;
}

function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  return m < 60 ? `${m}m${String(s % 60).padStart(2, '0')}s` : `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/** The progress line of a phase at `nowMs` (pure). */
export function progressLine(state: PhaseState, nowMs: number): string {
  const elapsed = nowMs - state.startedMs;
  const parts: string[] = [PHASE_WORDS[state.phase]];
  if (state.total !== undefined) {
    const total = Math.max(state.total, state.done);
    parts.push(`${state.done}/${state.estimated ? '~' : ''}${total}${state.unit ? ` ${state.unit}` : ''}`);
    const rate = state.done / Math.max(elapsed / 1000, 0.001);
    if (state.done > 0) {
      parts.push(rate >= 1 ? `${rate < 10 ? rate.toFixed(1) : Math.round(rate)}/s` : `${(rate * 60).toFixed(1)}/min`);
      const left = etaMs(state, total, elapsed);
      if (left !== undefined) parts.push(`ETA ${state.estimated ? '~' : ''}${duration(left)}`);
    }
  }
  if (state.bytes > 0) parts.push(`${formatBytes(state.bytes)} (${formatBytes(state.bytes / Math.max(elapsed / 1000, 0.001))}/s)`);
  if (state.failed > 0) parts.push(`failed ${state.failed}`);
  parts.push(`elapsed ${duration(elapsed)}`);
  return `  ${parts.join('  ')}`;
}

/** Time left: by bytes when the phase knows its total bytes (a big file is not worth a small one), else by items. */
function etaMs(state: PhaseState, total: number, elapsedMs: number): number | undefined {
  if (total <= state.done) return undefined;
  if (state.totalBytes !== undefined && state.bytes > 0) return (Math.max(0, state.totalBytes - state.bytes) / state.bytes) * elapsedMs;
  return ((total - state.done) / state.done) * elapsedMs;
}

/** A line cut to the terminal's width: a wrapped line would not be rewritten in place by `\r`. */
export function fitToWidth(line: string, columns: number | undefined): string {
  if (columns === undefined || columns <= 1 || line.length < columns) return line;
  return `${line.slice(0, columns - 2)}…`;
}

function drawLine(state: PhaseState): void {
  process.stderr.write(`\r\x1b[K${fitToWidth(progressLine(state, Date.now()), process.stderr.columns)}`);
}

/**
 * The end of a phase: on a terminal, its line drawn once more with the final numbers and ended with
 * a newline (if it was drawn at all); on a pipe, one line for a phase that lasted past the threshold.
 */
function endLine(state: PhaseState | undefined, drawn: boolean, live: boolean): void {
  if (state === undefined) return;
  if (live) {
    if (drawn) process.stderr.write(`\r\x1b[K${fitToWidth(progressLine(state, Date.now()), process.stderr.columns)}\n`);
    return;
  }
  if (Date.now() - state.startedMs >= SHOW_AFTER_MS()) process.stderr.write(`${progressLine(state, Date.now()).trimStart()}\n`);
}

/** Where progress goes: 'live' on a terminal, 'lines' on a pipe, 'off' with --quiet or --json. */
function progressMode(ctx: CommandContext): 'live' | 'lines' | 'off' {
  if (ctx.out.quiet || ctx.settings.json) return 'off';
  return process.stderr.isTTY === true ? 'live' : 'lines';
}

export function createProgress(ctx: CommandContext, _dryRun: boolean): Progress {
  const warn = (message: string) => ctx.out.debug(`note: ${message}`);
  const mode = progressMode(ctx);
  const live = mode === 'live';
  // The answer to a signal is said at once, --quiet or not: whoever sent it waits for it.
  const say = (message: string) => process.stderr.write(`${message}\n`);
  if (mode === 'off') {
    return { events: { phase: (name, detail) => ctx.out.debug(`${name}${detail ? `: ${detail}` : ''}`), warn, stopping: say }, done() {} };
  }
  let state: PhaseState | undefined;
  let drawn = false;
  const draw = () => {
    if (!live || !state || Date.now() - state.startedMs < SHOW_AFTER_MS()) return;
    drawLine(state);
    drawn = true;
  };
  const timer = setInterval(draw, REDRAW_MS);
  timer.unref();
  const clear = () => {
    endLine(state, drawn, live);
    drawn = false;
  };
  return {
    events: {
      phase(name, detail) {
        clear();
        if (!live) ctx.out.debug(`${name}${detail ? `: ${detail}` : ''}`);
        const total = name === 'download' || name === 'load' || name === 'capture' ? Number.parseInt(detail ?? '', 10) : undefined;
        state = { phase: name, startedMs: Date.now(), done: 0, total: Number.isFinite(total) ? total : undefined, bytes: 0, failed: 0 };
      },
      manifestFilesListed(listed, estimate) {
        if (state?.phase !== 'manifests' || estimate === 0) return;
        state.done = listed;
        state.total = estimate;
        state.estimated = true;
        state.unit = 'files';
      },
      loadDone(done, total) {
        if (state?.phase !== 'load') return;
        state.done = done;
        state.total = total;
      },
      targetsDone(done, total) {
        if (state?.phase !== 'capture') return;
        state.done = done;
        state.total = total;
      },
      file(event) {
        if (state?.phase !== 'download') return;
        if (event.outcome !== 'deferred') state.done++;
        if (event.outcome === 'failed') state.failed++;
        state.bytes += event.bytes;
      },
      warn,
      stopping(message) {
        if (live && drawn) process.stderr.write('\n');
        drawn = false;
        say(message);
      },
    },
    done() {
      clearInterval(timer);
      clear();
      state = undefined;
    },
  };
}

export interface TaskProgress {
  /** n of N items done, with the bytes they moved (and all the phase will move, when known). */
  onProgress: (done: number, total: number, bytes?: number, totalBytes?: number) => void;
  done(): void;
}

/**
 * Progress of a one-phase command (export, rebuild, verify, load, report) on a terminal: n/N, rate and
 * ETA, updated per item, ending at the final count; when stderr is not a terminal, that final line
 * alone (if the phase lasted past the threshold); nothing with --quiet or --json.
 */
export function createTaskProgress(ctx: CommandContext, phase: Phase): TaskProgress {
  const mode = progressMode(ctx);
  if (mode === 'off') return { onProgress: () => undefined, done: () => undefined };
  const live = mode === 'live';
  const state: PhaseState = { phase, startedMs: Date.now(), done: 0, total: undefined, bytes: 0, failed: 0 };
  let drawn = false;
  let drawnAt = 0;
  const draw = () => {
    const now = Date.now();
    if (!live || state.total === undefined || now - state.startedMs < SHOW_AFTER_MS()) return;
    drawLine(state);
    drawn = true;
    drawnAt = now;
  };
  // Redrawn as the elapsed time moves, and at each update (a few times a second at most).
  const timer = setInterval(draw, REDRAW_MS);
  timer.unref();
  return {
    onProgress(done, total, bytes, totalBytes) {
      state.done = done;
      state.total = total;
      if (bytes !== undefined) state.bytes = bytes;
      if (totalBytes !== undefined) state.totalBytes = totalBytes;
      if (!drawn || Date.now() - drawnAt >= REDRAW_MS) draw();
    },
    done() {
      clearInterval(timer);
      // The last update may fall between two draws (311/312): the line ends with the final count.
      if (state.total !== undefined) endLine(state, drawn, live);
      drawn = false;
    },
  };
}
