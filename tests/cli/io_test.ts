import { equal } from "node:assert/strict";
import { join } from "node:path";
import { attempt, type Command, runCli } from "../../src/cli/_command.ts";
import { OutputClosed } from "../../src/cli/_io.ts";
import { generateFile } from "../../src/gen/generate.ts";
import { tempDir } from "../_session_files.ts";

const CLI = new URL("../../cli.ts", import.meta.url).pathname;

const IO = new URL("../../src/cli/_io.ts", import.meta.url).href;

Deno.test("denoIo() writes all of a long text to a pipe and knows it is no terminal", async () => {
  const text = "x".repeat(300_000);
  const script = `
    import { denoIo } from ${JSON.stringify(IO)};
    const io = denoIo();
    io.stdout("x".repeat(${text.length}));
    io.stderr(JSON.stringify([io.isTerminal, io.columns, io.stderrIsTerminal]));
  `;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", script],
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  equal(out.code, 0, dec.decode(out.stderr));
  equal(dec.decode(out.stdout), text);
  // JSON writes Infinity as null.
  equal(dec.decode(out.stderr), "[false,null,false]");
});

Deno.test("the CLI stops without a word, exit code 0, when its output's reader goes away (cli tail | head)", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "s.jsonl");
  await generateFile(path, { size: 2 << 20, seed: 5 }); // megabytes of --json
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", CLI, "tail", "-n", "100000", "--json", path],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = child.stdout.getReader();
  const first = await reader.read();
  equal(first.done, false);
  await reader.cancel(); // as `head` does once it has its lines
  const [status, stderr] = await Promise.all([
    child.status,
    new Response(child.stderr).text(),
  ]);
  equal(stderr, "");
  equal(status.code, 0);
});

Deno.test("runCli() exits 0 silently on OutputClosed, from a command or through a failure's wording", async () => {
  for (const wrapped of [false, true]) {
    let err = "";
    const io = {
      stdout: () => {
        throw new OutputClosed();
      },
      stderr: (s: string) => {
        err += s;
      },
      isTerminal: false,
      columns: Infinity,
    };
    const command: Command = {
      name: "print",
      help: () => Promise.reject(new Error("not asked")),
      run: async (_args, io) => {
        if (wrapped) {
          await attempt("print", () => Promise.resolve(io.stdout("x")));
        } else io.stdout("x");
        return 0;
      },
    };
    const code = await runCli(
      { version: "v", notes: "", commands: [command] },
      [
        "print",
      ],
      io,
    );
    equal(code, 0);
    equal(err, "");
  }
});
