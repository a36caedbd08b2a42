// Lists as a user gives them: a comma list in one flag, a repeated flag, or an array in the config.

/** A list option as it arrives: one comma list, repeated values (each maybe a comma list), or absent. */
export type ListInput = string | readonly string[] | undefined;

/** Splits comma lists and repeated values, trims, drops empty items and duplicates (first wins). */
export function splitList(input: ListInput): string[] {
  if (input === undefined) return [];
  const values = typeof input === 'string' ? [input] : input;
  const items = values
    .flatMap((value) => value.split(','))
    .map((item) => item.trim())
    .filter((item) => item !== '');
  return [...new Set(items)];
}
