import { deepStrictEqual, equal, ok, throws } from "node:assert/strict";
import {
  attempt,
  type Call,
  CliUsageError,
  defineCommand,
  failure,
  parseArgs,
  printError,
  runCli,
  writeJson,
} from "../../src/cli/_command.ts";
import type { CliIo } from "../../src/cli/_io.ts";

/** An io that keeps what is written. */
function memoryIo(): CliIo & { out: string; err: string } {
  const io = {
    out: "",
    err: "",
    stdout: (s: string) => void (io.out += s),
    stderr: (s: string) => void (io.err += s),
    isTerminal: false,
    columns: Number.POSITIVE_INFINITY,
  };
  return io;
}

/** What a usage error prints after its message, for the probe. */
const PROBE_HINT = "Usage: cli probe <file> [--to DST] [--json] --size N\n" +
  'Run "cli probe --help" for its options.\n';

/** A command that records its call and returns `code`. */
function probe(code = 0) {
  const calls: Call<"to" | "json" | "size">[] = [];
  const command = defineCommand({
    name: "probe",
    summary: "Probe a file.",
    about: "Probe a file.",
    flags: {
      to: { value: "DST", help: "where to" },
      json: { help: "print JSON" },
      size: { value: "N", required: true, help: "how big" },
    },
    args: ["<file>"],
    run: (call, _io) => {
      calls.push(call);
      return Promise.resolve(code);
    },
  });
  return { command, calls };
}

async function run(
  args: string[],
  command = probe().command,
): Promise<{ code: number; out: string; err: string }> {
  const io = memoryIo();
  io.program = "cli";
  const code = await runCli(
    { version: "@x/probe 1.2.3", notes: "Notes.", commands: [command] },
    args,
    io,
  );
  return { code, out: io.out, err: io.err };
}

Deno.test("parseArgs() splits options from positionals", async (t) => {
  const spec = { to: true, json: false };
  await t.step("--flag value and --flag=value", () => {
    const a = parseArgs(["x", "--to", "a", "--json"], spec);
    deepStrictEqual(a.positional, ["x"]);
    equal(a.flags.get("to"), "a");
    equal(a.flags.get("json"), true);
    equal(parseArgs(["--to=b=c"], spec).flags.get("to"), "b=c");
    equal(parseArgs(["--to="], spec).flags.get("to"), "");
  });
  await t.step("-- makes the rest positional", () => {
    const a = parseArgs(["--json", "--", "--to", "-x", "--"], spec);
    deepStrictEqual(a.positional, ["--to", "-x", "--"]);
    deepStrictEqual([...a.flags.keys()], ["json"]);
  });
  await t.step("single-dash words are positional", () => {
    deepStrictEqual(parseArgs(["-", "-h"], spec).positional, ["-", "-h"]);
  });
  await t.step("the last of a repeated option wins", () => {
    equal(parseArgs(["--to", "a", "--to", "b"], spec).flags.get("to"), "b");
  });
  await t.step("an unknown option", () => {
    throws(() => parseArgs(["--nope"], spec), {
      name: "CliUsageError",
      message: 'unknown option "--nope"',
    });
    // Names of Object.prototype are options like any other.
    throws(() => parseArgs(["--constructor", "x"], spec), CliUsageError);
  });
  await t.step("a missing value", () => {
    throws(() => parseArgs(["x", "--to"], spec), {
      message: 'option "--to" needs a value',
    });
  });
  await t.step(
    "declared one-letter spellings: -t V, -tV, bundled -jt V",
    () => {
      const shorts = { t: "to", j: "json" };
      for (
        const args of [["-t", "a", "-j"], ["-ta", "-j"], ["-jt", "a"], ["-jta"]]
      ) {
        const a = parseArgs(args, spec, shorts);
        equal(a.flags.get("to"), "a", args.join(" "));
        equal(a.flags.get("json"), true, args.join(" "));
      }
      deepStrictEqual(parseArgs(["-x", "-5"], spec, shorts).positional, [
        "-x",
        "-5",
      ]);
      throws(() => parseArgs(["-jz"], spec, shorts), {
        message: 'unknown option "-z" in "-jz"',
      });
      throws(() => parseArgs(["-t"], spec, shorts), {
        message: 'option "-t" needs a value',
      });
    },
  );
});

Deno.test("defineCommand() hands the command its parsed arguments", async () => {
  const { command, calls } = probe();
  const r = await run(
    ["probe", "f.jsonl", "--size=3", "--to", "d", "--json"],
    command,
  );
  equal(r.code, 0, r.err);
  const [call] = calls;
  equal(call!.name, "probe");
  equal(call!.subcommand, undefined);
  deepStrictEqual(call!.args, ["f.jsonl"]);
  equal(call!.arg(), "f.jsonl");
  equal(call!.value("to"), "d");
  equal(call!.value("size"), "3");
  equal(call!.value("json"), undefined);
  ok(call!.has("json"));
  equal(call!.usageError("bad").message, "probe: bad");
});

Deno.test("defineCommand() answers --help with the command's help: exit code 0", async () => {
  const { command, calls } = probe();
  const r = await run(["probe", "--help"], command);
  equal(r.code, 0);
  equal(
    r.out,
    `Usage: cli probe <file> [--to DST] [--json] --size N

Probe a file.

Options:
  --to DST  where to
  --json    print JSON
  --size N  how big
  --help    print this help
`,
  );
  equal(r.err, "");
  equal(calls.length, 0, "--help needs no positional and runs nothing");
});

Deno.test("defineCommand() keeps every value of an option declared to repeat", async () => {
  const calls: Call<"dir" | "to">[] = [];
  const command = defineCommand({
    name: "many",
    summary: "Many dirs.",
    about: "",
    flags: {
      dir: { value: "D", repeat: true, help: "a dir (repeatable)" },
      to: { value: "DST", help: "where to" },
    },
    run: (call, _io) => {
      calls.push(call);
      return Promise.resolve(0);
    },
  });
  const r = await run(
    ["many", "--dir", "a", "--to", "x", "--dir=b", "--to", "y"],
    command,
  );
  equal(r.code, 0, r.err);
  const [call] = calls;
  deepStrictEqual(call!.values("dir"), ["a", "b"]);
  equal(call!.value("dir"), "b", "value() is the last");
  // An option not declared to repeat: the value that counts, the last.
  deepStrictEqual(call!.values("to"), ["y"]);
  await run(["many"], command);
  deepStrictEqual(calls[1]!.values("dir"), []);
  // The usage line says it repeats.
  const help = await run(["many", "--help"], command);
  ok(
    help.out.startsWith("Usage: cli many [--dir D]... [--to DST]\n"),
    help.out,
  );
});

Deno.test("defineCommand() words bad usage: exit code 2, then the usage", async () => {
  const cases: [string[], string][] = [
    [["--size", "1"], "probe: missing <file>"],
    [["a", "b", "--size", "1"], 'probe: unexpected argument "b"'],
    [["a", "--nope"], 'probe: unknown option "--nope"'],
    [["a", "--size"], 'probe: option "--size" needs a value'],
    [["a"], "probe: missing --size"],
    [["a", "--size", "1", "--help=x"], ""],
  ];
  for (const [args, message] of cases) {
    const r = await run(["probe", ...args]);
    if (message === "") {
      equal(r.code, 0, args.join(" "));
      continue;
    }
    equal(r.code, 2, args.join(" "));
    equal(r.out, "");
    equal(r.err, `error: ${message}\n${PROBE_HINT}`);
  }
});

Deno.test("defineCommand() checks a subcommand first and names it in messages", async () => {
  const seen: (string | undefined)[] = [];
  const command = defineCommand({
    name: "blobs",
    summary: "",
    about: "",
    flags: {},
    subcommands: ["verify", "gc"],
    run: (call) => {
      seen.push(call.name, call.subcommand);
      return Promise.resolve(0);
    },
  });
  const err = async (args: string[]) => (await run(args, command)).err;
  ok((await err(["blobs"])).startsWith("error: blobs: missing verify or gc\n"));
  ok((await err(["blobs", "x"])).startsWith(
    'error: blobs: unknown subcommand "x"\n',
  ));
  ok((await err(["blobs", "gc", "y"])).startsWith(
    'error: blobs gc: unexpected argument "y"\n',
  ));
  equal((await run(["blobs", "gc"], command)).code, 0);
  deepStrictEqual(seen, ["blobs gc", "gc"]);
});

Deno.test("runCli() settles exit codes: what run returns, 1 for a throw, 2 for usage", async (t) => {
  await t.step("the command's own code", async () => {
    equal((await run(["probe", "a", "--size", "1"], probe(1).command)).code, 1);
  });
  await t.step("a thrown error: 1, its message on stderr", async () => {
    const command = defineCommand({
      name: "probe",
      summary: "",
      about: "",
      flags: {},
      run: () => Promise.reject(new Error("Cannot probe: \x1b[2Jgone")),
    });
    const r = await run(["probe"], command);
    equal(r.code, 1);
    equal(r.err, "error: Cannot probe:  [2Jgone\n");
  });
  await t.step("a usage error thrown by the work: 2", async () => {
    const command = defineCommand({
      name: "probe",
      summary: "",
      about: "",
      flags: {},
      run: (call) => Promise.reject(call.usageError("--x is odd")),
    });
    const r = await run(["probe"], command);
    equal(r.code, 2);
    equal(
      r.err,
      "error: probe: --x is odd\nUsage: cli probe\n" +
        'Run "cli probe --help" for its options.\n',
    );
  });
  await t.step("no command: the usage, 2; help: the usage, 0", async () => {
    const usage = `Usage: cli <command> [options]

Commands:
  probe <file> [--to DST] [--json] --size N
      Probe a file.

Notes.

Run "cli <command> --help" for a command's options,
"cli --version" for the version.
`;
    for (const [args, code] of [[[], 2], [["help"], 0], [["-h"], 0]] as const) {
      const r = await run([...args]);
      equal(r.code, code);
      equal(r.out, usage);
    }
  });
  await t.step("--version, -V and version: the version, 0", async () => {
    for (const arg of ["--version", "-V", "version"]) {
      const r = await run([arg]);
      equal(r.code, 0);
      equal(r.out, "@x/probe 1.2.3\n");
    }
  });
  await t.step("an unknown command: 2, one line and a hint", async () => {
    const r = await run(["frob"]);
    equal(r.code, 2);
    equal(
      r.err,
      'error: unknown command "frob"\nRun "cli --help" for the commands.\n',
    );
  });
});

Deno.test("writeJson() prints indented JSON, a Map as an object", () => {
  const io = memoryIo();
  const counts = new Map([["constructor", 1], ["__proto__", 2]]);
  writeJson(io, { counts, n: 1 });
  equal(
    io.out,
    '{\n  "counts": {\n    "constructor": 1,\n    "__proto__": 2\n  },\n  "n": 1\n}\n',
  );
});

Deno.test("printError() prints error: and the message, safe for a terminal", () => {
  const io = memoryIo();
  printError(io, 'Cannot read "a\x1b[2J.jsonl": gone');
  equal(io.err, 'error: Cannot read "a [2J.jsonl": gone\n');
});

/** An error as the filesystem seam throws them: its POSIX code set. */
function osError(code: string): Error {
  return Object.assign(new Error(`os error (${code})`), { code });
}

Deno.test("failure() words an error as Cannot <action>: <state>", () => {
  const cases: [Error, string][] = [
    [osError("ENOENT"), "no such file or directory"],
    [osError("EISDIR"), "it is a folder"],
    [osError("ENOTDIR"), "not a folder"],
    [osError("EEXIST"), "it already exists"],
    [osError("EACCES"), "permission denied"],
    [new Error("odd"), "odd"],
  ];
  for (const [err, state] of cases) {
    const f = failure('open "a"', err);
    equal(f.message, `Cannot open "a": ${state}`);
    equal(f.cause, err);
  }
  const worded = new Error('Cannot fork "a": "b" already exists');
  equal(failure('fork "a"', worded), worded);
});

Deno.test("attempt() passes a result through and words a failure", async () => {
  equal(await attempt("x", () => Promise.resolve(7)), 7);
  const err = await attempt(
    'read "b"',
    () => Deno.stat("/nowhere/b"),
  ).catch((e) => e);
  equal(err.message, 'Cannot read "b": no such file or directory');
});
