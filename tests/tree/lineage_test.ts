import { deepStrictEqual, equal, rejects } from "node:assert/strict";
import { join } from "node:path";
import { forkSession, Session } from "../../mod.ts";
import { sessionLineage } from "../../src/tree/lineage.ts";
import { makeDataDir } from "../_cli.ts";

const MAIN = "01a0e775-0100-7eee-9510-1c122060007d";

Deno.test("sessionLineage() finds omp's fork (by id), branch and subagent (by path) of a session", async () => {
  await using d = await makeDataDir();
  const down = await sessionLineage(d.session("s1-main.jsonl"));
  equal(down.dataDir, d.root);
  equal(down.session.id, MAIN);
  deepStrictEqual(down.parents, []);
  deepStrictEqual(
    down.forks.map((s) => s.path.split("/").pop()).sort(),
    ["s1-branched.jsonl", "s1-fork.jsonl", "s1-subagent.jsonl"],
  );
  for (const child of ["s1-fork", "s1-branched", "s1-subagent"]) {
    const up = await sessionLineage(d.session(`${child}.jsonl`));
    deepStrictEqual(up.parents.map((s) => s.id), [MAIN], child);
    equal(up.unresolved, undefined);
  }
});

Deno.test("sessionLineage() follows a chain of forks and stops at a parent it cannot find", async () => {
  await using d = await makeDataDir();
  const first = await forkSession(d.session("s2-main.jsonl"));
  const second = await forkSession(first.path);
  const up = await sessionLineage(second.path, { dataDir: d.root });
  deepStrictEqual(up.parents.map((s) => s.path), [
    first.path,
    d.session("s2-main.jsonl"),
  ]);
  // A parent named by a path outside any data dir: read where it is.
  const lone = join(d.root, "lone.jsonl");
  await Deno.copyFile(d.session("s1-subagent.jsonl"), lone);
  const away = await sessionLineage(lone, { dataDir: join(d.root, "none") });
  deepStrictEqual(away.parents, []);
  equal(away.unresolved?.endsWith(`_${MAIN}.jsonl`), true);
});

Deno.test("sessionLineage() of a fresh session: no parents, its forks in the data dir", async () => {
  await using d = await makeDataDir();
  await using s = await Session.create({ cwd: "/home/dev/x", dataDir: d.root });
  await s.appendMessage({ role: "user", content: "hi" });
  await s.ensureOnDisk();
  const fork = await forkSession(s.path!);
  const l = await sessionLineage(s.path!);
  equal(l.dataDir, d.root);
  deepStrictEqual(l.forks.map((f) => f.path), [fork.path]);
  await rejects(
    sessionLineage(join(d.root, "missing.jsonl")),
    /^NotFound: Cannot read the lineage of ".*missing.jsonl": no such file or directory$/,
  );
});
