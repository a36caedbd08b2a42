// A gate a test opens when it has seen what it waits for: the promise behind an emulator `hold` fault
// (an answer held until the test releases it) or anything else a test would otherwise sleep for.
export interface Gate {
  readonly until: Promise<void>;
  open(): void;
  readonly opened: boolean;
}

export function gate(): Gate {
  let open!: () => void;
  let opened = false;
  const until = new Promise<void>((resolve) => (open = resolve));
  return {
    until,
    open() {
      opened = true;
      open();
    },
    get opened() {
      return opened;
    },
  };
}
