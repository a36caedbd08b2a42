// A size as people read it, in one form wherever gexwh prints one (status, sync, report, chart,
// doctor): 512 B, 712.3 KB, 1.1 MB, 76.2 GB. JSON keeps the byte count.
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
