/**
 * `deno task test` runs the conformance suite (`conformance.ts`) under Node
 * and Bun too, where this machine has them: the project's npm dependencies
 * installed (`npm install` makes `node_modules/`) and each runtime one
 * `npx --yes` away (from npx's cache, else the npm registry). Otherwise the
 * case is ignored and its name says why; `.ci/run` installs both and runs
 * the suite under each itself.
 */

import { equal, match } from "node:assert/strict";

const ROOT = new URL("../../", import.meta.url);
const SUITE = new URL("conformance.ts", import.meta.url).pathname;

/** The runtimes, as npx names the packages that ship their binaries. */
const RUNTIMES = [["Node", "node@22"], ["Bun", "bun@1.4.5"]] as const;

const installed = await Deno.stat(new URL("node_modules/re2js", ROOT)).then(
  () => true,
  () => false,
);

/** Whether `npx` can run the runtime `pkg` (it evaluates `0`). */
async function runs(pkg: string): Promise<boolean> {
  try {
    const out = await new Deno.Command("npx", {
      args: ["--yes", pkg, "-e", "0"],
      stdout: "null",
      stderr: "null",
    }).output();
    return out.success;
  } catch {
    return false; // no npx
  }
}

for (const [name, pkg] of RUNTIMES) {
  const why = !installed
    ? "no node_modules: run `npm install`"
    : !await runs(pkg)
    ? `\`npx --yes ${pkg}\` cannot run it here`
    : "";
  Deno.test({
    name: `the conformance suite passes on ${name} (${pkg})${
      why ? ` (skipped: ${why})` : ""
    }`,
    ignore: why !== "",
    async fn() {
      const out = await new Deno.Command("npx", {
        args: ["--yes", pkg, SUITE],
        cwd: ROOT,
        env: { DENO: Deno.execPath() },
        stdout: "piped",
        stderr: "piped",
      }).output();
      const text = new TextDecoder().decode(out.stdout);
      const failures = text.split("\n").filter((l) => l.startsWith("FAIL"));
      match(text, /\n(\d+) passed, 0 failed\n$/, failures.join("\n"));
      equal(out.code, 0, new TextDecoder().decode(out.stderr));
    },
  });
}
