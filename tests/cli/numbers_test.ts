/**
 * Numbers for people are written as `Intl.NumberFormat("en-US")` writes
 * them, without loading it where that is plain (its first use costs ~20
 * ms in a process).
 */

import assert from "node:assert/strict";
import fc from "fast-check";
import {
  formatCompact,
  formatCount,
  formatFixed,
} from "../../src/cli/_numbers.ts";

const counts = new Intl.NumberFormat("en-US");
const compact = new Intl.NumberFormat("en-US", {
  notation: "compact",
  maximumFractionDigits: 1,
});
const fixed = (x: number, d: number): string =>
  x.toLocaleString("en-US", {
    minimumFractionDigits: d,
    maximumFractionDigits: d,
  });

/** Numbers where rounding is decided: ties, carries, unit edges, odd values. */
const numbers = fc.oneof(
  fc.nat({ max: Number.MAX_SAFE_INTEGER }),
  fc.integer({ min: 0, max: 15 }).chain((mag) =>
    fc.nat({ max: 10 ** mag }).map((n) => n * 10 + 5)
  ),
  fc.integer({ min: 1, max: 15 }).chain((mag) =>
    fc.integer({ min: -60, max: 60 }).map((d) => 10 ** mag + d)
  ),
  fc.tuple(fc.nat({ max: 1e9 }), fc.integer({ min: 0, max: 8 })).map((
    [n, d],
  ) => n / 10 ** d),
  fc.double({ min: 0, max: 1e16, noNaN: true }),
  fc.constantFrom(
    -0,
    -5,
    -1234.5,
    NaN,
    Infinity,
    1e21,
    1e-7,
    999_950,
    999_949,
    1.005,
    2.675,
    0.125,
  ),
);

Deno.test("formatCount, formatCompact and formatFixed write what Intl writes", () => {
  fc.assert(
    fc.property(numbers, (x) => {
      assert.equal(formatCount(x), counts.format(x), `count ${x}`);
      assert.equal(formatCompact(x), compact.format(x), `compact ${x}`);
      for (const d of [2, 4]) {
        assert.equal(formatFixed(x, d), fixed(x, d), `fixed ${d} ${x}`);
      }
    }),
    { numRuns: 20_000 },
  );
});

Deno.test("a usage table's numbers and days need neither Intl's number nor its date formats", async () => {
  const usage = new URL("../../src/cli/_usage.ts", import.meta.url).href;
  const days = new URL("../../src/usage/_days.ts", import.meta.url).href;
  const numbers = new URL("../../src/cli/_numbers.ts", import.meta.url).href;
  const probe = `
    const used = [];
    const stub = (name) => function () { used.push(name); throw new Error(name); };
    Intl.NumberFormat = stub("NumberFormat");
    Intl.DateTimeFormat = stub("DateTimeFormat");
    Number.prototype.toLocaleString = stub("toLocaleString");
    const { formatMoney } = await import(${JSON.stringify(usage)});
    const { formatCompact, formatCount } = await import(${
    JSON.stringify(numbers)
  });
    const { CalendarKeys } = await import(${JSON.stringify(days)});
    const out = [formatMoney(1234.5), formatMoney(0.0048), formatCount(982550374),
      formatCompact(1936203780), new CalendarKeys().day(Date.UTC(2026, 0, 5, 12))];
    console.log(JSON.stringify({ out, used }));
  `;
  const r = await new Deno.Command(Deno.execPath(), {
    args: ["eval", probe],
    env: { TZ: "Europe/Berlin" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(r.code, 0, new TextDecoder().decode(r.stderr));
  const { out, used } = JSON.parse(new TextDecoder().decode(r.stdout));
  assert.deepEqual(used, []);
  assert.deepEqual(out, [
    "$1,234.50",
    "$0.0048",
    "982,550,374",
    "1.9B",
    "2026-01-05",
  ]);
});
