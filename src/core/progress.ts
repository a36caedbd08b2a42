// The one shape of progress a long job reports to whoever draws it (the CLI on a terminal).

/** Told as work advances: items done of a total, and the bytes they moved (of all bytes, when known). */
export type OnProgress = (done: number, total: number, bytes?: number, totalBytes?: number) => void;
