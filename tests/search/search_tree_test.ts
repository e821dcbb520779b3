import { deepEqual } from "node:assert/strict";
import { join } from "node:path";
import { SessionIndex } from "../../mod.ts";
import { sessionBytes, tempDir, user } from "../_session_files.ts";
import { searched } from "../_indexed.ts";

/** The ids of the hits on the active path, then those off it, each sorted. */
function sides(hits: { entryId: string; onActivePath: boolean }[]): string {
  const on = hits.filter((h) => h.onActivePath).map((h) => h.entryId).sort();
  const off = hits.filter((h) => !h.onActivePath).map((h) => h.entryId).sort();
  return `${on.join(" ")} | ${off.join(" ")}`;
}

Deno.test("searched() scanning walks from the leaf to the root, as the reader does", async (t) => {
  await using dir = await tempDir();
  const cases: [string, [string, string | null][], string][] = [
    [
      "a branch: only the leaf's ancestors",
      [["0000000a", null], ["0000000b", "0000000a"], ["0000000c", "0000000a"]],
      "0000000a 0000000c | 0000000b",
    ],
    [
      "ids that are not 8 hex digits, mixed with those that are",
      [
        ["x-1", null],
        ["0000000a", "x-1"],
        ["y-2", "0000000a"],
        ["0000000b", "y-2"],
      ],
      "0000000a 0000000b x-1 y-2 | ",
    ],
    [
      "the lowest and highest hex ids",
      [["00000000", null], ["ffffffff", "00000000"], ["fffffffe", "ffffffff"]],
      "00000000 fffffffe ffffffff | ",
    ],
    [
      "a missing parent ends the path",
      [["0000000a", "deadbeef"], ["0000000b", "0000000a"]],
      "0000000a 0000000b | ",
    ],
    [
      "a cycle ends the path",
      [
        ["0000000a", "deadbeef"],
        ["0000000b", "0000000a"],
        ["0000000c", "0000000d"],
        ["0000000d", "0000000c"],
      ],
      "0000000c 0000000d | 0000000a 0000000b",
    ],
    [
      "a later entry with the same id wins",
      [
        ["0000000a", null],
        ["0000000b", null],
        ["0000000c", "0000000a"],
        ["0000000c", "0000000b"],
      ],
      "0000000b 0000000c 0000000c | 0000000a",
    ],
  ];
  for (const [i, [name, entries, want]] of cases.entries()) {
    await t.step(name, async () => {
      const root = join(dir.path, `d${i}`);
      const folder = join(root, "sessions", "--home-dev-app--");
      await Deno.mkdir(folder, { recursive: true });
      await Deno.writeFile(
        join(folder, "s.jsonl"),
        sessionBytes(
          entries.map(([id, parent]) => user(id, parent, `needletree ${id}`)),
        ),
      );
      (await SessionIndex.open(root)).close();
      const scan = await searched(root, "needletree", { index: false });
      deepEqual(sides(scan.hits), want);
      const indexed = await searched(root, "needletree");
      deepEqual(indexed.hits, scan.hits);
    });
  }
});
