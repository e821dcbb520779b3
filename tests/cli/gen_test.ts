import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { Session } from "../../src/session/session.ts";
import { cli, cliCases, cliInProcess } from "../_cli.ts";

const MIB = 1024 * 1024;

Deno.test("cli gen writes a transcript of the size asked and sums it up", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const out = join(dir, "big.jsonl");
    const r = await cli(["gen", "--size", "2M", "--out", out]);
    equal(r.code, 0, r.stderr);
    equal(r.stderr, ""); // no progress bar: stderr is not a terminal
    const size = (await Deno.stat(out)).size;
    ok(size >= 2 * MIB && size < 2.5 * MIB);
    ok(r.stdout.startsWith(`wrote ${out}\nbytes        ${size} (2.0 MB)\n`));
    ok(
      /\nentries +\d+\ncompactions +\d+\nresets +2\nleaf +[0-9a-f]{8}\n$/
        .test(r.stdout),
      r.stdout,
    );
    await using s = await Session.open(out);
    ok(r.stdout.includes(`leaf         ${s.leafId}\n`));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cli gen --json with --seed, --no-checkpoints, --branch-back", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const out = join(dir, "a.jsonl");
    const args = ["gen", "--size", "2M", "--out", out, "--seed", "7"];
    const r = await cli([
      ...args,
      "--no-checkpoints",
      "--branch-back",
      "--json",
    ]);
    equal(r.code, 0, r.stderr);
    const summary = JSON.parse(r.stdout);
    equal(summary.path, out);
    equal(summary.bytes, (await Deno.stat(out)).size);
    const text = await Deno.readTextFile(out);
    ok(!text.includes('"customType":"xdev.settings"'));
    ok(text.includes('"type":"branch_summary"'));
    // The same options give the same bytes; an existing file needs --force.
    const again = await cli([...args, "--no-checkpoints", "--branch-back"]);
    equal(again.code, 1);
    equal(
      again.stderr,
      `error: Cannot generate "${out}": the file exists (--force overwrites it)\n`,
    );
    const forced = await cli([
      ...args,
      "--no-checkpoints",
      "--branch-back",
      "--force",
      "--json",
    ]);
    equal(forced.code, 0, forced.stderr);
    deepStrictEqual(JSON.parse(forced.stdout), summary);
    equal(await Deno.readTextFile(out), text);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cli gen draws a progress bar on a terminal's stderr", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const r = await cliInProcess(
      ["gen", "--size", "2M", "--out", join(dir, "p.jsonl")],
      { stderrIsTerminal: true },
    );
    equal(r.code, 0, r.stderr);
    ok(r.stderr.startsWith("\r["), JSON.stringify(r.stderr));
    ok(
      /\r\[##########\] 100% 2\.0\/2\.0 MB\r +\r$/.test(r.stderr),
      JSON.stringify(r.stderr),
    );
    for (const frame of r.stderr.trimEnd().split("\r").slice(1)) {
      ok(
        /^\[[# ]{10}\] \d{1,3}% \d+\.\d\/2\.0 MB( · \w+ left)? *$/.test(frame),
        frame,
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cli gen: bad usage is exit code 2", async () => {
  const cases = [
    ["gen", "--out", "x.jsonl"],
    ["gen", "--size", "2M"],
    ["gen", "--size", "lots", "--out", "x.jsonl"],
    ["gen", "--size", "2M", "--out", "x.jsonl", "--seed", "1.5"],
    ["gen", "extra", "--size", "2M", "--out", "x.jsonl"],
  ];
  for (const [i, r] of (await cliCases(cases)).entries()) {
    equal(r.code, 2, cases[i]!.join(" "));
    ok(r.stderr.startsWith("error: gen: "), r.stderr);
  }
});
