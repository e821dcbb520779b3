import { equal, match, ok } from "node:assert/strict";
import {
  clearLine,
  ProgressBar,
  progressBar,
  progressPhases,
} from "../../src/cli/_progress.ts";

Deno.test("ProgressBar draws in place, throttled, and wipes itself at the end", async (t) => {
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
    const last = "[##########] 100% 100.0/100.0 MB";
    equal(
      out,
      `\r[#####     ] 50% 50.0/100.0 MB\r${last}${clearLine(last.length)}`,
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
      const last = "[##########] 100% 10/10 files";
      equal(out, `\r${last}\r${" ".repeat(last.length)}\r`);
    },
  );
});

/** A fake terminal's standard error, and a clock the test moves. */
function fakeTerminal() {
  const t = {
    err: "",
    ms: 0,
    io: {
      stderr: (s: string) => void (t.err += s),
      stderrIsTerminal: true,
    },
    now: () => t.ms,
  };
  return t;
}

Deno.test("progressPhases() on a terminal: the time left from the rate so far, and no bar left at the end", () => {
  const t = fakeTerminal();
  const bars = progressPhases(t.io, {}, t.now);
  bars.update(0, 100, "files");
  t.ms = 500;
  bars.update(10, 100, "files");
  ok(!t.err.includes("left"), "no guess in the first second");
  t.ms = 2000; // 20 files in 2 s: 80 more take 8 s
  bars.update(20, 100, "files");
  match(t.err, /\r\[## {8}\] 20% 20\/100 files · 8s left$/);
  t.ms = 62_000; // 50 in 62 s: 50 more take 62 s
  bars.update(50, 100, "files");
  match(t.err, /50% 50\/100 files · 1m02s left$/);
  bars.update(100, 100, "files");
  bars.finish();
  // The last frame (each is padded over the one before), then spaces over
  // it, then back to the line's start.
  const frames = t.err.split("\r");
  const last = frames.at(-3)!.trimEnd();
  equal(last, "[##########] 100% 100/100 files");
  equal(frames.at(-2), " ".repeat(last.length));
  equal(frames.at(-1), "");
  ok(!t.err.includes("\n"), "never a line feed: nothing scrolls");
  ok(!t.err.includes("\x1b"), "no escape sequence");
});

Deno.test("progressPhases().finish() again draws nothing: a command's finally after its own leaves no bar", () => {
  const t = fakeTerminal();
  const bars = progressPhases(t.io, {}, t.now);
  bars.update(5, 100, "files");
  bars.finish();
  const wiped = t.err;
  bars.finish();
  equal(t.err, wiped);
});

Deno.test("progressPhases() draws nothing when standard error is no terminal", () => {
  const t = fakeTerminal();
  const bars = progressPhases({ ...t.io, stderrIsTerminal: false }, {}, t.now);
  bars.update(1, 100, "files");
  t.ms = 5000;
  bars.update(50, 100, "files");
  bars.finish();
  equal(t.err, "");
});
