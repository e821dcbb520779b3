/**
 * An exact sum of floating-point numbers (Shewchuk's partials, as Python's
 * `math.fsum`): the correctly rounded sum whatever the order of the terms,
 * so a report summed from the files and one summed from the index agree to
 * the last bit.
 *
 * @module
 */

/** Adds numbers without losing any bit; {@linkcode ExactSum.value} rounds once. */
export class ExactSum {
  /**
   * The partials: the first `#count` hold the sum. The array is never
   * shortened (setting an array's length is a call into the runtime, and
   * a sum of a day's calls is added to for every call).
   */
  #partials: number[] = [];
  #count = 0;

  /**
   * Add a finite number.
   *
   * @param value The number.
   */
  add(value: number): void {
    const p = this.#partials;
    const count = this.#count;
    let x = value;
    let n = 0;
    for (let i = 0; i < count; i++) {
      let y = p[i]!;
      if (Math.abs(x) < Math.abs(y)) {
        const t = x;
        x = y;
        y = t;
      }
      const hi = x + y;
      const lo = y - (hi - x);
      if (lo !== 0) p[n++] = lo;
      x = hi;
    }
    if (n < p.length) p[n] = x;
    else p.push(x);
    this.#count = n + 1;
  }

  /** The partials (their exact sum is the sum so far): what another sum can add. */
  partials(): readonly number[] {
    return this.#partials.slice(0, this.#count);
  }

  /** The sum, correctly rounded. */
  value(): number {
    const p = this.#partials;
    let n = this.#count;
    if (n === 0) return 0;
    let hi = p[--n]!;
    let lo = 0;
    while (n > 0) {
      const x = hi;
      const y = p[--n]!;
      hi = x + y;
      lo = y - (hi - x);
      if (lo !== 0) break;
    }
    // Round half to even across the partials left (Python's fsum).
    if (n > 0 && ((lo < 0 && p[n - 1]! < 0) || (lo > 0 && p[n - 1]! > 0))) {
      const y = lo * 2;
      const x = hi + y;
      if (y === x - hi) hi = x;
    }
    return hi;
  }
}
