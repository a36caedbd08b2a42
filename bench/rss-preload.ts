// Preloaded into a benchmarked child (node --import): at exit, writes the process's peak RSS in KiB
// and the CPU time it used (user + system, every thread, in microseconds) to file descriptor 3 (a pipe
// the parent opened). Native memory and threads (DuckDB) count too. CPU time moves far less than the
// wall clock when other work shares the machine, so a before/after on a busy box still reads true.
import { readFileSync, writeSync } from 'node:fs';

/**
 * Linux's VmHWM is the peak of this program's own address space. getrusage's maxRSS is not: Linux
 * carries it across exec, so a child spawned by a 235 MB bench process reported 235 MB for doing nothing.
 */
function peakRssKiB(): number {
  try {
    const match = /^VmHWM:\s+(\d+)\s+kB$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (match) return Number(match[1]);
  } catch {
    // Not Linux: fall back below.
  }
  return process.resourceUsage().maxRSS;
}

process.on('exit', () => {
  try {
    const { userCPUTime, systemCPUTime } = process.resourceUsage();
    writeSync(3, `${peakRssKiB()} ${userCPUTime + systemCPUTime}\n`);
  } catch {
    // fd 3 not open: run outside the bench, nothing to report.
  }
});
