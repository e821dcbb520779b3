import assert from "node:assert/strict";
import fc from "fast-check";
import { compareRank, createdOf } from "../../src/usage/_copies.ts";

/** What a file's name was read as before: one pattern, then `Date.parse`. */
const _NAME_TIME =
  /(?:^|[\\/])(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})(?:-(\d{1,9}))?Z_[^\\/]*\.jsonl$/;
function createdByPattern(path: string): number {
  const m = _NAME_TIME.exec(path);
  if (m === null) return Infinity;
  const [, date, h, min, s, frac] = m;
  const ms = (frac ?? "").padEnd(3, "0").slice(0, 3);
  const t = Date.parse(`${date}T${h}:${min}:${s}.${ms}Z`);
  return Number.isFinite(t) ? t : Infinity;
}

const digits = (n: number, max: number) =>
  fc.integer({ min: 0, max }).map((v) => String(v).padStart(n, "0"));

/** Names near the pattern: every field at and past its bounds, damaged or not. */
const nameArb = fc.record({
  dir: fc.constantFrom(
    "",
    "/d/",
    "C:\\d\\",
    "/a/2026-01-01T00-00-00Z_x.jsonl/",
  ),
  year: fc.oneof(digits(4, 9999), fc.constantFrom("0000", "0099", "99")),
  month: digits(2, 14),
  day: digits(2, 33),
  h: digits(2, 25),
  min: digits(2, 61),
  s: digits(2, 61),
  frac: fc.oneof(
    fc.constant(""),
    fc.stringMatching(/^-\d{0,11}$/),
  ),
  tail: fc.constantFrom(
    "Z_id.jsonl",
    "Z_.jsonl",
    "Z_a/b.jsonl",
    "Z.jsonl",
    "Z_id.json",
    "_id.jsonl",
    "Z_x.jsonl.jsonl",
    "Z_",
  ),
  damage: fc.option(
    fc.tuple(fc.nat(40), fc.constantFrom("x", "-", "T", "9", "")),
    { nil: undefined },
  ),
}).map((r) => {
  let name =
    `${r.year}-${r.month}-${r.day}T${r.h}-${r.min}-${r.s}${r.frac}${r.tail}`;
  if (r.damage !== undefined) {
    const [at, c] = r.damage;
    name = name.slice(0, at) + c + name.slice(at + 1);
  }
  return r.dir + name;
});

Deno.test("createdOf reads a file's name as the pattern and Date.parse did", () => {
  for (
    const path of [
      "/d/2026-01-02T03-04-05-678Z_abc.jsonl",
      "2026-01-02T03-04-05Z_abc.jsonl",
      "2026-02-31T00-00-00-1Z_x.jsonl", // runs over into March
      "2026-01-01T24-00-00Z_x.jsonl", // the next day's start
      "2026-01-01T24-00-00-001Z_x.jsonl",
      "0042-06-01T00-00-00-123456789Z_x.jsonl",
      "0000-02-29T00-00-00-0Z_id.jsonl", // a leap day of a year under 100
      "0100-02-29T00-00-00Z_id.jsonl", // none in 100
      "2026-01-01T00-00-00-1234567890Z_x.jsonl",
      "session.jsonl",
    ]
  ) {
    assert.equal(createdOf(path), createdByPattern(path), path);
  }
  assert.equal(
    createdOf("/d/2026-01-02T03-04-05-678Z_abc.jsonl"),
    Date.UTC(2026, 0, 2, 3, 4, 5, 678),
  );
  fc.assert(
    fc.property(nameArb, (path) => {
      assert.equal(createdOf(path), createdByPattern(path), path);
    }),
    { numRuns: 3000 },
  );
});

Deno.test("compareRank: the earliest created first, then the path in code point order", () => {
  const rank = (path: string) => ({ path, created: createdOf(path) });
  const a = rank("/z/2026-01-01T00-00-00-001Z_a.jsonl");
  const b = rank("/a/2026-01-01T00-00-00-002Z_a.jsonl");
  const unnamed = rank("/a/session.jsonl");
  assert.ok(compareRank(a, b) < 0 && compareRank(b, a) > 0);
  assert.ok(compareRank(b, unnamed) < 0, "a name without a time comes last");
  // U+FF5E is above the surrogates in UTF-16, below U+1F600 in code points.
  const wide = rank("/a/\uff5e.jsonl");
  const emoji = rank("/a/\u{1f600}.jsonl");
  assert.ok(compareRank(wide, emoji) < 0 && compareRank(emoji, wide) > 0);
  assert.equal(compareRank(wide, rank("/a/\uff5e.jsonl")), 0);
  assert.ok(compareRank(rank("/a/x.jsonl"), rank("/a/x.jsonl.jsonl")) < 0);
});
