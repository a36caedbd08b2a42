// The three kinds of daily file the history serves, each loaded into the table of the same name.

export const FILE_KINDS = ['levels', 'strikes_total', 'strikes_by_expiry'] as const;
export type FileKind = (typeof FILE_KINDS)[number];

export function isFileKind(value: string): value is FileKind {
  return (FILE_KINDS as readonly string[]).includes(value);
}
