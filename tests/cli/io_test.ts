import { equal } from "node:assert/strict";

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
