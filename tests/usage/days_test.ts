/**
 * Calendar keys of the local zone come from `Date`'s local fields, those
 * of a named zone from Intl: both must give the same days, DST included.
 * Each zone runs in a process of its own, its `TZ` set.
 */

import assert from "node:assert/strict";
import { CalendarKeys } from "../../src/usage/_days.ts";

const DAYS = new URL("../../src/usage/_days.ts", import.meta.url).href;

/** In a process whose local zone is `zone`: the local keys against the named ones. */
const PROBE = `
import { CalendarKeys } from ${JSON.stringify(DAYS)};
const zone = Deno.env.get("TZ");
const local = new CalendarKeys();
const named = new CalendarKeys(zone);
const diffs = [];
// Every 15 minutes of 2026, and of the days around 1970 and 2038.
const spans = [[Date.UTC(2026, 0, 1), Date.UTC(2027, 0, 2)],
  [Date.UTC(1969, 11, 30), Date.UTC(1970, 0, 3)],
  [Date.UTC(2038, 0, 17), Date.UTC(2038, 0, 21)]];
let n = 0;
for (const [from, to] of spans) {
  for (let ms = from + 7 * 60 * 1000; ms < to; ms += 15 * 60 * 1000) {
    n++;
    if (local.day(ms) !== named.day(ms)) diffs.push([ms, local.day(ms), named.day(ms)]);
  }
}
for (const day of ["2026-03-08", "2026-03-29", "2026-10-25", "2026-11-01", "2026-12-31"]) {
  n++;
  if (local.startOf(day) !== named.startOf(day)) diffs.push([day, local.startOf(day), named.startOf(day)]);
}
console.log(JSON.stringify({ zone: local.timeZone, named: named.timeZone, n, diffs: diffs.slice(0, 5) }));
`;

for (
  const zone of [
    "Europe/Berlin",
    "America/New_York",
    "Australia/Lord_Howe", // a DST change of 30 minutes
    "Asia/Kolkata",
    "Pacific/Apia", // skipped a whole day (2011) and had DST until 2021
  ]
) {
  Deno.test(`the local zone's days are the named zone's: TZ=${zone}`, async () => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["eval", "--ext=ts", PROBE],
      env: { TZ: zone },
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const r = JSON.parse(new TextDecoder().decode(out.stdout));
    // Named as Intl names it (ICU's canonical name: Asia/Kolkata is
    // Asia/Calcutta in both).
    assert.equal(r.zone, r.named);
    assert.ok(r.n > 35_000, `${r.n} moments`);
    assert.deepEqual(r.diffs, []);
  });
}

Deno.test("an unknown zone is refused; UTC needs no zone data", () => {
  assert.throws(() => new CalendarKeys("Mars/Olympus_Mons"), RangeError);
  const utc = new CalendarKeys("UTC");
  assert.equal(utc.timeZone, "UTC");
  assert.equal(utc.day(Date.UTC(2026, 0, 31, 23, 59)), "2026-01-31");
  assert.equal(
    new CalendarKeys("Etc/UTC").day(Date.UTC(2026, 1, 1)),
    "2026-02-01",
  );
});
