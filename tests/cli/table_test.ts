import { equal, ok } from "node:assert/strict";
import { textWidth } from "../../src/cli/_format.ts";
import { formatTable } from "../../src/cli/_table.ts";

Deno.test("formatTable() fits any width and never wraps", async (t) => {
  const columns = [
    { header: "id" },
    { header: "title", shrink: "end" as const, priority: 1, min: 6 },
    { header: "cwd", shrink: "start" as const, min: 6, optional: true },
    { header: "n", right: true },
  ];
  const rows = [
    [
      "a1",
      "A long title 🐛 with 결과 and more words",
      "/home/ann/src/app",
      "7",
    ],
    ["b2", "Short", "/srv/x", "12345"],
  ];
  await t.step("not a terminal: every cell in full", () => {
    const out = formatTable(columns, rows, Infinity).split("\n");
    const title = "A long title 🐛 with 결과 and more words"; // 40 cells
    equal(out[0], `id  title${" ".repeat(37)}cwd${" ".repeat(16)}    n`);
    equal(out[1], `a1  ${title}  /home/ann/src/app      7`);
    equal(out[2], `b2  Short${" ".repeat(37)}/srv/x${" ".repeat(13)}12345`);
  });
  await t.step(
    "the cwd gives way first, then the title, then the cwd goes",
    () => {
      for (let width = 10; width <= 80; width++) {
        const out = formatTable(columns, rows, width).split("\n");
        for (const line of out) {
          ok(
            textWidth(line) <= width,
            `${width}: ${line}`,
          );
        }
      }
      const cwdCut = formatTable(columns, rows, 65).split("\n");
      ok(cwdCut[1]!.includes("and more words  …ann/src/app"), cwdCut[1]);
      const bothCut = formatTable(columns, rows, 40).split("\n");
      ok(bothCut[1]!.includes(" with…  …c/app  "), bothCut[1]);
      const narrower = formatTable(columns, rows, 22).split("\n");
      equal(narrower[0], "id  title            n");
    },
  );
  await t.step("control characters become spaces", () => {
    const out = formatTable([{ header: "t" }], [["a\x1b[2Jb\nc"]], Infinity);
    equal(out, "t\na [2Jb c");
  });
});
