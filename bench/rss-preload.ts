// Preloaded into a benchmarked child (node --import): at exit, writes the process's peak RSS in KiB
// to file descriptor 3 (a pipe the parent opened). Native memory (DuckDB) counts too.
import { writeSync } from 'node:fs';

process.on('exit', () => {
  try {
    writeSync(3, `${process.resourceUsage().maxRSS}\n`);
  } catch {
    // fd 3 not open: run outside the bench, nothing to report.
  }
});
