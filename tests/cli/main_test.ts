import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { cli as run, cliInProcess } from "../_cli.ts";
import { main } from "../../cli.ts";
import deno from "../../deno.json" with { type: "json" };

const cli = (...args: string[]) => run(args);

Deno.test("cli exit codes: 2 for bad usage, 1 for a file that cannot be read", async (t) => {
  await t.step("no arguments", async () => equal((await cli()).code, 2));
  await t.step("an unknown command", async () => {
    const r = await cli("frobnicate");
    equal(r.code, 2);
    ok(r.stderr.includes('unknown command "frobnicate"'));
  });
  await t.step(
    "an unknown option",
    async () => equal((await cli("context", "x", "--nope")).code, 2),
  );
  await t.step("a missing file", async () => {
    const r = await cli("context", "/nonexistent/x.jsonl");
    equal(r.code, 1);
    ok(r.stderr.startsWith("error: "));
  });
  await t.step("--help", async () => {
    const r = await cli("context", "--help");
    equal(r.code, 0);
    ok(r.stdout.startsWith("Usage: xdev-session context"));
  });
});

Deno.test("cli a usage error is one line, the command's usage line and a hint: exit code 2", async () => {
  const r = await cli("context", "x", "--nope");
  equal(r.code, 2);
  equal(r.stdout, "");
  const lines = r.stderr.trimEnd().split("\n");
  equal(lines[0], 'error: context: unknown option "--nope"');
  ok(lines[1]!.startsWith("Usage: xdev-session context <session> "), lines[1]);
  equal(lines.at(-1), 'Run "xdev-session context --help" for its options.');
  ok(lines.length <= 4, r.stderr);
  const bare = await cli("frob");
  equal(
    bare.stderr,
    'error: unknown command "frob"\nRun "xdev-session --help" for the commands.\n',
  );
});

Deno.test("cli --version prints the version in deno.json", async () => {
  for (const arg of ["--version", "version"]) {
    const r = await cli(arg);
    equal(r.code, 0);
    equal(r.stdout, `@xdev/session ${deno.version}\n`);
  }
});

Deno.test("cli names itself $XDEV_SESSION_PROG, which the project's tasks set, else xdev-session", async () => {
  const r = await run(["frob"], { XDEV_SESSION_PROG: "deno task cli" });
  ok(r.stderr.includes('Run "deno task cli --help"'), r.stderr);
  const help = await run(["show", "--help"], { XDEV_SESSION_PROG: "  " });
  ok(help.stdout.startsWith("Usage: xdev-session show "), help.stdout);
  for (const task of ["cli", "demo"] as const) {
    ok(
      deno.tasks[task].startsWith("XDEV_SESSION_PROG='deno task cli' "),
      task,
    );
  }
});

Deno.test("cli help lists every command, exit code 0", async () => {
  const r = await cli("help");
  equal(r.code, 0);
  for (
    const c of [
      "list",
      "show",
      "context",
      "stats",
      "fork",
      "gen",
      "blobs verify|gc|restore",
      "demo",
    ]
  ) {
    ok(r.stdout.includes(`\n  ${c} `), c);
  }
});

Deno.test("cli every command answers --help with its usage", async () => {
  // Each is loaded when it runs: this also checks each name loads its command.
  for (
    const c of [
      "list",
      "index",
      "search",
      "show",
      "context",
      "stats",
      "usage",
      "tree",
      "tail",
      "fork",
      "export",
      "gen",
      "blobs",
      "demo",
    ]
  ) {
    const r = await cliInProcess([c, "--help"]);
    equal(r.code, 0, c);
    ok(r.stdout.startsWith(`Usage: xdev-session ${c}`), c);
  }
});

/** What a run in process prints, with the program's name set. */
async function inProcess(
  args: string[],
): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await main(args, {
    stdout: (s) => void (out += s),
    stderr: (s) => void (err += s),
    isTerminal: false,
    columns: Infinity,
    program: "prog",
  });
  return { code, out, err };
}

Deno.test("cli every option a command parses is in its help and the program's usage, and every option they name parses", async (t) => {
  const usage = (await inProcess(["--help"])).out;
  const commands = [...usage.matchAll(/^ {2}([a-z]+) /gm)].map((m) => m[1]!);
  deepStrictEqual(commands, [
    "list",
    "index",
    "search",
    "show",
    "context",
    "stats",
    "usage",
    "tree",
    "tail",
    "fork",
    "export",
    "gen",
    "blobs",
    "demo",
  ]);
  for (const c of commands) {
    await t.step(c, async () => {
      const help = (await inProcess([c, "--help"])).out;
      const next = commands[commands.indexOf(c) + 1];
      const from = usage.indexOf(`\n  ${c} `);
      const block = usage.slice(
        from,
        next === undefined
          ? usage.indexOf("\n\n", from)
          : usage.indexOf(`\n  ${next} `),
      );
      // The help's usage line and its options; its prose may quote others' ("git log --graph").
      const options = help.slice(help.indexOf("\nOptions:\n"));
      const synopsis = help.slice(0, help.indexOf("\n\n"));
      // Every option the help or the usage names is one the parser takes.
      const named = new Set(
        [...`${synopsis}\n${options}\n${block}`.matchAll(
          /(?<![\w-])(--[a-z][a-z-]*|-[a-z])\b/g,
        )]
          .map((m) => m[1]!),
      );
      for (const flag of named) {
        // --x=1 suits a switch or a value; a short one is -n1 or -f.
        const tries = flag.startsWith("--")
          ? [`${flag}=1`]
          : [`${flag}1`, flag];
        const codes = [];
        for (const arg of tries) {
          codes.push((await inProcess([c, arg, "--help"])).code);
        }
        ok(codes.includes(0), `${c} ${flag} does not parse`);
      }
      // Every option the parser takes is named in the help, and in the usage.
      for (
        const m of options.matchAll(/^ {2}(?:-([a-z])[^,]*, )?--([a-z-]+)/gm)
      ) {
        if (m[2] === "help") continue;
        ok(
          block.includes(`--${m[2]}`) ||
            new RegExp(`\\[-${m[1]}[ \\]]`).test(block),
          `${c} --${m[2]} in the usage`,
        );
      }
      const parsed = named.size;
      ok(parsed > 1, c);
      // A word not in the help is not parsed.
      const r = await inProcess([c, "--not-an-option", "--help"]);
      equal(r.code, 2);
    });
  }
});
