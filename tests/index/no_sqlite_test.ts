/**
 * A runtime without SQLite (Node before 22.13, or `node:sqlite` failing
 * to import): the library imports, the index is skipped with one warning,
 * and `list`, `search` and `usage` answer from the files. Played on Deno
 * by an import map that makes `node:sqlite` a module whose import throws.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { needleSessions } from "../_index_damage.ts";
import { tempDir } from "../_session_files.ts";

const ROOT = new URL("../../", import.meta.url);
const CLI = new URL("cli.ts", ROOT).pathname;
const MOD = new URL("mod.ts", ROOT).href;
const SKIPPED =
  /^warning: no SQLite on this runtime: the index is skipped \(node:sqlite: no node:sqlite here\)$/;

/** An import map of the package's imports, `node:sqlite` made to throw. */
async function withoutSqlite(dir: string): Promise<string> {
  const config = JSON.parse(
    await Deno.readTextFile(new URL("deno.json", ROOT)),
  ) as { imports: Record<string, string> };
  const thrower = join(dir, "no_sqlite.js");
  await Deno.writeTextFile(
    thrower,
    'throw new Error("no node:sqlite here");\n',
  );
  const map = join(dir, "import_map.json");
  await Deno.writeTextFile(
    map,
    JSON.stringify({
      imports: { ...config.imports, "node:sqlite": `file://${thrower}` },
    }),
  );
  return map;
}

async function run(
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const r = await new Deno.Command(Deno.execPath(), {
    args,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder();
  return {
    code: r.code,
    stdout: text.decode(r.stdout),
    stderr: text.decode(r.stderr),
  };
}

Deno.test("no SQLite: list, search and usage answer from the files, with one warning", async () => {
  await using dir = await tempDir();
  await using maps = await tempDir();
  await needleSessions(dir.path, 3);
  const map = await withoutSqlite(maps.path);
  for (
    const args of [["list"], ["search", "needle"], ["usage"], ["index"]]
  ) {
    const flags = [...args, "--data-dir", dir.path];
    const files = await run(["run", "-A", CLI, ...flags, "--no-index"]);
    const r = await run(["run", "-A", `--import-map=${map}`, CLI, ...flags]);
    const warnings = r.stderr.split("\n").filter((l) => l !== "");
    if (args[0] === "index") {
      // The one command that is the index fails, and says why.
      assert.equal(r.code, 1, r.stderr);
      assert.match(warnings[0]!, SKIPPED);
      continue;
    }
    assert.equal(r.code, 0, r.stderr);
    assert.equal(warnings.length, 1, r.stderr);
    assert.match(warnings[0]!, SKIPPED);
    assert.equal(r.stdout, files.stdout);
    assert.notEqual(r.stdout, "");
  }
  await assert.rejects(Deno.stat(join(dir.path, "index.sqlite")));
});

Deno.test("no SQLite: SessionIndex.open throws NoSqliteError; tryOpen is undefined with the warning", async () => {
  await using dir = await tempDir();
  await using maps = await tempDir();
  await needleSessions(dir.path, 1);
  const script = `
    import { listSessions, SessionIndex } from ${JSON.stringify(MOD)};
    const warnings = [];
    const none = await SessionIndex.tryOpen(Deno.args[0], { onWarning: (m) => warnings.push(m) });
    let name;
    try {
      await SessionIndex.open(Deno.args[0], { onWarning: (m) => warnings.push(m) });
    } catch (err) {
      name = err.name;
    }
    const listed = (await listSessions(Deno.args[0])).length;
    console.log(JSON.stringify({ none: none === undefined, name, warnings, listed }));
  `;
  const map = await withoutSqlite(maps.path);
  const r = await run([
    "eval",
    "--quiet",
    `--import-map=${map}`,
    script,
    dir.path,
  ]);
  assert.equal(r.code, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.deepEqual(out, {
    none: true,
    name: "NoSqliteError",
    warnings: [
      "no SQLite on this runtime: the index is skipped (node:sqlite: no node:sqlite here)",
    ],
    listed: 1,
  });
});
