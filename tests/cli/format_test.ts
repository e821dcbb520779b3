import { equal, ok } from "node:assert/strict";
import {
  formatBytes,
  formatTable,
  ProgressBar,
  progressBar,
  sanitize,
  textWidth,
  truncate,
} from "../../src/cli/_format.ts";

Deno.test("textWidth() counts terminal cells", () => {
  equal(textWidth("abc"), 3);
  equal(textWidth("去掉全局"), 8);
  equal(textWidth("결과"), 4);
  equal(textWidth("🛠️"), 2);
  equal(textWidth("🐛🐛"), 4);
  equal(textWidth("e\u0301"), 1);
  equal(textWidth("✓"), 1);
});

Deno.test("truncate() cuts at a grapheme and marks the cut", () => {
  equal(truncate("hello world", 20), "hello world");
  equal(truncate("hello world", 6), "hello…");
  equal(truncate("/home/ann/src/app", 8, "start"), "…src/app");
  equal(truncate("去掉全局", 6), "去掉…");
  equal(truncate("🛠️🛠️", 4), "🛠️🛠️");
  equal(truncate("🛠️🛠️", 3), "🛠️…");
  equal(truncate("abc", 0), "");
});

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

Deno.test("sanitize() keeps text and drops control characters", () => {
  equal(sanitize("ok ✓"), "ok ✓");
  equal(sanitize("a\u0007b\u009bc\u2028d"), "a b c d");
});

Deno.test("formatBytes() uses the binary units gen --size reads", () => {
  equal(formatBytes(0), "0 B");
  equal(formatBytes(1023), "1023 B");
  equal(formatBytes(1536), "1.5 KB");
  equal(formatBytes(100 * 1024 * 1024), "100.0 MB");
  equal(formatBytes(3 * 1024 ** 3), "3.0 GB");
});

Deno.test("ProgressBar draws in place, throttled, and ends the line", async (t) => {
  const total = 100 * 1024 * 1024;
  await t.step("render()", () => {
    const bar = new ProgressBar(() => {}, { total, unit: "bytes" });
    equal(bar.render(45 * 1024 * 1024), "[#####     ] 45% 45.0/100.0 MB");
    equal(bar.render(0), "[          ] 0% 0.0/100.0 MB");
    const files = new ProgressBar(() => {}, { total: 20, unit: "files" });
    equal(files.render(9), "[#####     ] 45% 9/20 files");
  });
  await t.step("update() and finish()", () => {
    let out = "";
    const bar = new ProgressBar((s) => out += s, {
      total,
      unit: "bytes",
      interval: 1e9,
    });
    bar.update(total / 2);
    bar.update(total * 0.6); // within the interval: not drawn
    bar.finish(total);
    equal(
      out,
      "\r[#####     ] 50% 50.0/100.0 MB\r[##########] 100% 100.0/100.0 MB\n",
    );
  });
  await t.step(
    "progressBar() draws only on a terminal, and only for enough work",
    () => {
      let out = "";
      const io = { stderr: (s: string) => void (out += s) };
      const quiet = progressBar(io, { total: 10, unit: "files" });
      quiet.update(5);
      quiet.finish(10);
      const few = progressBar({ ...io, stderrIsTerminal: true }, {
        total: 3,
        unit: "files",
        minimum: 8,
      });
      few.finish(3);
      equal(out, "");
      const shown = progressBar({ ...io, stderrIsTerminal: true }, {
        total: 10,
        unit: "files",
      });
      shown.finish(10);
      equal(out, "\r[##########] 100% 10/10 files\n");
    },
  );
});
