import { equal } from "node:assert/strict";
import { ProgressBar, progressBar } from "../../src/cli/_progress.ts";

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
