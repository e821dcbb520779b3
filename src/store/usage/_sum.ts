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
  #partials: number[] = [];

  /**
   * Add a finite number.
   *
   * @param value The number.
   */
  add(value: number): void {
    const p = this.#partials;
    let x = value;
    let n = 0;
    for (let i = 0; i < p.length; i++) {
      let y = p[i]!;
      if (Math.abs(x) < Math.abs(y)) [x, y] = [y, x];
      const hi = x + y;
      const lo = y - (hi - x);
      if (lo !== 0) p[n++] = lo;
      x = hi;
    }
    p.length = n;
    p.push(x);
  }

  /** The partials (their exact sum is the sum so far): what another sum can add. */
  partials(): readonly number[] {
    return this.#partials;
  }

  /** The sum, correctly rounded. */
  value(): number {
    const p = this.#partials;
    let n = p.length;
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
