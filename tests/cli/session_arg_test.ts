/**
 * The session argument every command takes (`src/cli/_session_arg.ts`),
 * the folder relative paths resolve from (`INIT_CWD`), and the data dirs
 * the many-session commands cover (`src/cli/_data_dirs.ts`), each run as a
 * subprocess with HOME and the agents' variables pointed at temp dirs.
 */
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { cli, FIXTURES } from "../_cli.ts";

/** A HOME holding the omp fixtures as omp's sessions (and nothing else). */
async function home(): Promise<
  { home: string; omp: string; env: Record<string, string> } & AsyncDisposable
> {
  const home = await Deno.makeTempDir({ prefix: "xdev-home-" });
  const omp = join(home, ".omp", "agent");
  const folder = join(omp, "sessions", "-src-app");
  await Deno.mkdir(folder, { recursive: true });
  for (const name of ["s1-main.jsonl", "s1-fork.jsonl", "s2-main.jsonl"]) {
    await Deno.copyFile(new URL(name, FIXTURES), join(folder, name));
  }
  return {
    home,
    omp,
    env: { HOME: home },
    [Symbol.asyncDispose]: () => Deno.remove(home, { recursive: true }),
  };
}

const S1_MAIN = "01a0e775-0100-7eee-9510-1c122060007d";

Deno.test("cli resolves a relative path from INIT_CWD, and writes output files there", async () => {
  await using h = await home();
  const work = join(h.home, "work");
  await Deno.mkdir(work);
  await Deno.copyFile(
    new URL("s1-main.jsonl", FIXTURES),
    join(work, "mine.jsonl"),
  );
  const env = { ...h.env, INIT_CWD: work };
  const show = await cli(["show", "mine.jsonl", "--json"], env);
  equal(show.code, 0, show.stderr);
  equal(JSON.parse(show.stdout).path, join(work, "mine.jsonl"));
  const exported = await cli(["export", "mine.jsonl", "--json"], env);
  equal(exported.code, 0, exported.stderr);
  deepEqual(JSON.parse(exported.stdout).files, [join(work, "mine.html")]);
  const forked = await cli(
    ["fork", "mine.jsonl", "--to", "f.jsonl", "--json"],
    env,
  );
  equal(forked.code, 0, forked.stderr);
  equal(JSON.parse(forked.stdout).path, join(work, "f.jsonl"));
});

Deno.test("cli commands take a session id, a unique prefix, or SESSION#ENTRY", async (t) => {
  await using h = await home();
  const file = join(h.omp, "sessions", "-src-app", "s1-main.jsonl");
  await t.step(
    "a full id and a prefix, looked up in omp's data dir",
    async () => {
      for (const arg of [S1_MAIN, "01a0e775", "01A0E775"]) {
        const r = await cli(["show", arg, "--json"], h.env);
        equal(r.code, 0, r.stderr);
        equal(JSON.parse(r.stdout).path, file);
      }
    },
  );
  await t.step("the id list prints is accepted", async () => {
    const list = await cli(["list"], h.env);
    const row = list.stdout.split("\n")[1]!;
    const id = row.match(/ ([0-9a-f]{8}[0-9a-f-]*) /)![1]!;
    const r = await cli(["tail", id, "-n", "1"], h.env);
    equal(r.code, 0, `${id}: ${r.stderr}`);
  });
  await t.step("an ambiguous prefix names the candidates, exit 1", async () => {
    const r = await cli(["show", "01a0e7"], h.env);
    equal(r.code, 1);
    match(
      r.stderr,
      /^error: Cannot find the session "01a0e7": 3 sessions start with it: /,
    );
    ok(r.stderr.includes(S1_MAIN), r.stderr);
  });
  await t.step("no match is exit 1, saying where it looked", async () => {
    const r = await cli(["context", "ffffffff"], h.env);
    equal(r.code, 1);
    ok(
      r.stderr.includes(`no session id starts with it (looked in ${h.omp})`),
      r.stderr,
    );
  });
  await t.step("SESSION#ENTRY, as search prints it, is --at", async () => {
    const byPath = await cli(["context", `${file}#f4c0e439`, "--json"], h.env);
    equal(byPath.code, 0, byPath.stderr);
    equal(JSON.parse(byPath.stdout).leafId, "f4c0e439");
    const byId = await cli(["context", "01a0e775#f4c0e439", "--json"], h.env);
    equal(JSON.parse(byId.stdout).leafId, "f4c0e439");
    const at = await cli(
      ["context", file, "--at", "5c0ae90b", "--json"],
      h.env,
    );
    equal(JSON.parse(at.stdout).leafId, "5c0ae90b");
    const differ = await cli([
      "context",
      `${file}#f4c0e439`,
      "--at",
      "5c0ae90b",
    ], h.env);
    equal(differ.code, 2);
    const none = await cli(["context", file, "--at", "00000000"], h.env);
    equal(none.code, 1);
    match(none.stderr, /Cannot find the entry "00000000"/);
  });
});

Deno.test("cli tree --at draws the path to the entry as active; fork --at keeps only it", async () => {
  await using h = await home();
  const file = join(h.omp, "sessions", "-src-app", "s1-main.jsonl");
  const tree = await cli(["tree", file, "--at", "7b596212", "--json"], h.env);
  equal(tree.code, 0, tree.stderr);
  const out = JSON.parse(tree.stdout);
  equal(out.leafId, "7b596212");
  const onPath = out.nodes.filter((n: { onActivePath: boolean }) =>
    n.onActivePath
  )
    .map((n: { id: string }) => n.id);
  ok(
    onPath.includes("5c0ae90b") && !onPath.includes("f4c0e439"),
    onPath.join(),
  );
  const to = join(h.home, "branch.jsonl");
  const fork = await cli(["fork", `${file}#7b596212`, "--to", to], h.env);
  equal(fork.code, 0, fork.stderr);
  const forked = await cli(["tree", to, "--json", "--filter", "all"], h.env);
  const nodes = JSON.parse(forked.stdout).nodes;
  equal(JSON.parse(forked.stdout).leafId, "7b596212");
  ok(nodes.every((n: { onActivePath: boolean }) => n.onActivePath));
  const ctx = JSON.parse((await cli(["context", to, "--json"], h.env)).stdout);
  const src = JSON.parse(
    (await cli(["context", file, "--at", "7b596212", "--json"], h.env)).stdout,
  );
  deepEqual(ctx.messages, src.messages);
});

Deno.test("cli list, search, usage and index cover xdev's, omp's and pi's data dirs", async (t) => {
  await using h = await home();
  const pi = join(h.home, "pi-agent");
  await Deno.mkdir(join(pi, "sessions", "-src-pi"), { recursive: true });
  await Deno.copyFile(
    new URL("s1-edge.jsonl", FIXTURES),
    join(pi, "sessions", "-src-pi", "s1-edge.jsonl"),
  );
  // PI_CODING_AGENT_DIR moves omp's dir too: OMP_PROFILE gives omp its own.
  const profile = join(h.home, ".omp", "profiles", "work", "agent");
  await Deno.mkdir(join(h.home, ".omp", "profiles", "work"), {
    recursive: true,
  });
  await Deno.rename(h.omp, profile);
  const env = { ...h.env, PI_CODING_AGENT_DIR: pi, OMP_PROFILE: "work" };
  await t.step("list: each row says where it comes from", async () => {
    const r = await cli(["list", "--json"], env);
    equal(r.code, 0, r.stderr);
    const rows = JSON.parse(r.stdout) as { agent: string; dataDir: string }[];
    deepEqual(
      [...new Set(rows.map((s) => `${s.agent} ${s.dataDir}`))].sort(),
      [`omp ${profile}`, `pi ${pi}`],
    );
    const text = await cli(["list"], env);
    match(text.stdout, /^last active +from +id/);
  });
  await t.step("nothing is written into omp's or pi's folders", async () => {
    for (const dir of [profile, pi]) {
      const names = [];
      for await (const e of Deno.readDir(dir)) names.push(e.name);
      deepEqual(names, ["sessions"], dir);
    }
    const indexes = [];
    for await (
      const e of Deno.readDir(join(h.home, ".cache", "xdev", "indexes"))
    ) {
      indexes.push(e.name.replace(/-[0-9a-f]{16}\.sqlite$/, ""));
    }
    deepEqual(indexes.sort(), ["omp", "pi"]);
  });
  await t.step(
    "--data-dir narrows; one that does not exist is exit 1",
    async () => {
      const r = await cli(["list", "--json", "--data-dir", pi], env);
      equal(JSON.parse(r.stdout).length, 1);
      const missing = await cli(
        ["usage", "--data-dir", join(h.home, "nope")],
        env,
      );
      equal(missing.code, 1);
      match(
        missing.stderr,
        /^error: Cannot read the data dir ".*nope": no such folder/,
      );
    },
  );
  await t.step(
    "a data dir without sessions says where the others are",
    async () => {
      const empty = join(h.home, "empty");
      await Deno.mkdir(empty);
      const r = await cli(["list", "--data-dir", empty], env);
      equal(r.code, 0);
      equal(
        r.stdout,
        `No sessions in ${empty} (other data dirs: omp ${profile}, pi ${pi})\n`,
      );
    },
  );
  await t.step("search and index cover both", async () => {
    const s = await cli(["search", "the", "--json", "--limit", "200"], env);
    equal(s.code, 0, s.stderr);
    const agents = new Set(
      JSON.parse(s.stdout).hits.map((x: { agent: string }) => x.agent),
    );
    deepEqual([...agents].sort(), ["omp", "pi"]);
    const i = await cli(["index", "--json"], env);
    equal(i.code, 0, i.stderr);
    deepEqual(JSON.parse(i.stdout).map((x: { agent: string }) => x.agent), [
      "omp",
      "pi",
    ]);
  });
});
