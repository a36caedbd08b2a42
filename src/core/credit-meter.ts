// One budget of units a run may spend: file credits for a sync's downloads and link renewals,
// requests for a capture. Every spend asks the meter first: take() either counts the units or
// refuses and counts nothing, so what is taken never passes the limit. UNLIMITED is the one form
// "no bound" takes, from the planner to the fetch stage to a plan file or a summary (JSON's null).

/** No bound: the only form "unlimited" takes (null, so JSON carries it as it is). */
export const UNLIMITED = null;

/** How many units a run may spend: a count (0 or more), or UNLIMITED. */
export type Limit = number | typeof UNLIMITED;

/** The tightest of some limits; UNLIMITED only when every one is. */
export function lowestLimit(...limits: readonly Limit[]): Limit {
  let lowest: Limit = UNLIMITED;
  for (const limit of limits) if (limit !== UNLIMITED && (lowest === UNLIMITED || limit < lowest)) lowest = limit;
  return lowest;
}

export class CreditMeter {
  #spent = 0;

  constructor(readonly limit: Limit) {
    if (limit !== UNLIMITED) checkUnits(limit, 'limit');
  }

  /** Units taken and not refunded. */
  get spent(): number {
    return this.#spent;
  }

  /** Units still to take; UNLIMITED when nothing bounds the meter. */
  get left(): Limit {
    return this.limit === UNLIMITED ? UNLIMITED : this.limit - this.#spent;
  }

  /** Takes `units` when they fit in what is left (true); else takes nothing (false). */
  take(units = 1): boolean {
    checkUnits(units, 'units');
    const left = this.left;
    if (left !== UNLIMITED && units > left) return false;
    this.#spent += units;
    return true;
  }

  /** Gives back units taken and then not spent after all (a planned file never paid for). */
  refund(units = 1): void {
    checkUnits(units, 'units');
    if (units > this.#spent) throw new RangeError(`a refund of ${units} is more than the ${this.#spent} taken`);
    this.#spent -= units;
  }
}

function checkUnits(units: number, name: string): void {
  if (!Number.isSafeInteger(units) || units < 0) throw new RangeError(`${name} must be a whole number of 0 or more, got ${units}`);
}
