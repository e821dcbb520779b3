/**
 * Following a file omp appends to, through the peer oracle (real omp
 * 18.3.4 under Bun); skipped where the oracle is not installed.
 */
import { equal } from "node:assert/strict";
import { join } from "node:path";
import { tempDir } from "../_session_files.ts";
import { follow } from "./_watch.ts";

const OMP = new URL("../../.cache/omp/", import.meta.url).pathname;
const BUN = join(OMP, "node_modules", ".bin", "bun");
const FIXTURE = new URL("../../fixtures/omp/s1-main.jsonl", import.meta.url);

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return false;
    throw err;
  }
}

const HAS_OMP = await exists(BUN) && await exists(join(OMP, "oracle.ts"));
if (!HAS_OMP) {
  console.log(
    "watch/omp: skipped: the omp oracle is absent (.cache/omp): run `deno task interop` once to install it",
  );
}

Deno.test({
  name: "watchSession() yields the user messages omp appends, once each, whole",
  ignore: !HAS_OMP,
  fn: async () => {
    await using dir = await tempDir();
    const file = join(dir.path, "s1-main.jsonl");
    await Deno.copyFile(FIXTURE, file);
    await using f = await follow(file);
    for (const text of ["omp one ✅", "omp two ✅"]) {
      const out = await new Deno.Command(BUN, {
        args: ["oracle.ts", "roundtrip", file, "--text", text],
        cwd: OMP,
        stdout: "piped",
        stderr: "piped",
      }).output();
      equal(out.code, 0, new TextDecoder().decode(out.stderr));
      const e = await f.next(30_000);
      const m =
        (e as { message: { role: string; content: { text: string }[] } })
          .message;
      equal(m.role, "user");
      equal(m.content[0]!.text, text);
    }
    equal(await f.quiet(300), true);
  },
});
