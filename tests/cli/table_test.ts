import { deepStrictEqual, equal, ok } from "node:assert/strict";
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

Deno.test("formatTable() never cuts two different cells to the same text", async (t) => {
  const models = [
    ["anthropic/claude-sonnet-4-5", "1"],
    ["anthropic/claude-haiku-4-5", "2"],
    ["openai/gpt-5.1-codex", "3"],
  ];
  const cellsOf = (out: string): string[] =>
    out.split("\n").slice(1).map((l) => l.split(/ {2,}/)[0]!);
  await t.step("an end cut that would confuse two rows: another cut", () => {
    const out = formatTable(
      [{ header: "model", shrink: "end", min: 12 }, { header: "n" }],
      models,
      18,
    );
    const cells = cellsOf(out);
    equal(new Set(cells).size, 3, out);
    for (const l of out.split("\n")) ok(textWidth(l) <= 18, l);
  });
  await t.step("the column takes more room than its min to stay apart", () => {
    const rows = [["abc-1-xyz", "n"], ["abc-2-xyz", "n"]];
    const column = { header: "id", shrink: "end" as const, min: 4 };
    const out = formatTable(
      [{ ...column, ownCutOnly: true }, { header: "n" }],
      rows,
      9,
    );
    // At its min, "abc…" twice; one cell more tells them apart.
    equal(out, "id      n\nabc-1…  n\nabc-2…  n");
  });
  await t.step("ownCutOnly: cells its cut would confuse wrap instead", () => {
    const rows = [["0190-0000-11", "1"], ["0190-0000-21", "2"], [
      "01a0-77",
      "3",
    ]];
    const out = formatTable(
      [{ header: "id", shrink: "end", ownCutOnly: true, min: 6 }, {
        header: "n",
        right: true,
      }],
      rows,
      9,
    );
    equal(
      out,
      // "0190-…" would be both: they wrap; "01a0-…" is still one id's prefix.
      "id      n\n0190-0  1\n000-11\n0190-0  2\n000-21\n01a0-…  3",
    );
  });
  await t.step("a column left out is named under the table", () => {
    const out = formatTable(
      [{ header: "a" }, { header: "cache write", optional: true }],
      [["x", "1,000,000"]],
      12,
      { leftOutHint: "--json has them" },
    ).split("\n");
    equal(out[0], "a");
    deepStrictEqual(
      out.slice(2).join(" "),
      "(cache write left out at 12 columns; --json has them)",
    );
  });
});
