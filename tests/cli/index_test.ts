import { deepEqual, equal, match, ok } from "node:assert/strict";
import { join } from "node:path";
import { cli, cliInProcess, FIXTURE_SESSIONS, makeDataDir } from "../_cli.ts";

Deno.test("cli index --json prints what the refresh did; a second run reads nothing", async () => {
  await using d = await makeDataDir();
  const first = await cli(["index", "--data-dir", d.root, "--json"]);
  equal(first.code, 0, first.stderr);
  const [done] = JSON.parse(first.stdout);
  deepEqual(Object.keys(done), [
    "agent",
    "dataDir",
    "index",
    "sessions",
    "refreshed",
    "removed",
    "skipped",
    "ms",
    "fresh",
  ]);
  equal(done.sessions, FIXTURE_SESSIONS);
  equal(done.fresh, false);
  equal(done.refreshed, FIXTURE_SESSIONS);
  equal(typeof done.ms, "number");
  const [second] = JSON.parse(
    (await cli(["index", "--data-dir", d.root, "--json"])).stdout,
  );
  equal(second.refreshed, 0);
  equal(second.fresh, true);
  const [rebuilt] = JSON.parse(
    (await cli(["index", "--data-dir", d.root, "--rebuild", "--json"])).stdout,
  );
  equal(rebuilt.refreshed, FIXTURE_SESSIONS);
  equal(rebuilt.fresh, false);
});

Deno.test("cli index prints one line, and a progress bar on a terminal", async () => {
  await using d = await makeDataDir();
  for (let i = 0; i < 60; i++) {
    await Deno.copyFile(
      d.session("s1-main.jsonl"),
      join(d.sessions, `copy-${i}.jsonl`),
    );
  }
  const r = await cliInProcess(["index", "--data-dir", d.root], {
    stderrIsTerminal: true,
  });
  equal(r.code, 0, r.stderr);
  match(
    r.stdout,
    /^74 sessions indexed in .*index\.sqlite: 74 read, 0 removed, 0 skipped \(\d+ ms\)\n$/,
  );
  match(r.stderr, /\r\[#+\] 100% 74\/74 files\r +\r$/);
  const again = await cliInProcess(["index", "--data-dir", d.root]);
  match(
    again.stdout,
    /^74 sessions indexed in .*index\.sqlite: up to date, nothing changed since the last refresh \(\d+ ms\)\n$/,
  );
});

Deno.test("cli list makes and uses the index; --no-index lists the same without touching it", async () => {
  await using d = await makeDataDir();
  const index = join(d.root, "index.sqlite");
  const bare = await cli([
    "list",
    "--data-dir",
    d.root,
    "--all",
    "--json",
    "--no-index",
  ]);
  equal(bare.code, 0, bare.stderr);
  ok(!await Deno.stat(index).then(() => true, () => false));
  const made = await cli(["list", "--data-dir", d.root, "--all", "--json"]);
  equal(made.code, 0, made.stderr);
  ok(await Deno.stat(index).then(() => true, () => false));
  const warm = await cli(["list", "--data-dir", d.root, "--all", "--json"]);
  equal(warm.stdout, bare.stdout);
  equal(made.stdout, bare.stdout);
});

Deno.test("cli list goes on without an index it cannot use, with the warning on stderr", async () => {
  await using d = await makeDataDir();
  await Deno.mkdir(join(d.root, "index.sqlite")); // a folder where the file goes
  const r = await cli(["list", "--data-dir", d.root, "--json"]);
  equal(r.code, 0, r.stderr);
  equal(JSON.parse(r.stdout).length, FIXTURE_SESSIONS);
  match(r.stderr, /index/);
  const failed = await cli(["index", "--data-dir", d.root]);
  equal(failed.code, 1);
  match(
    failed.stderr,
    /^warning: Cannot use the session index .*\nerror: Cannot index ".*": the index cannot be used\n$/,
  );
});

Deno.test("cli list of a data dir without sessions leaves no index behind", async () => {
  const root = await Deno.makeTempDir();
  try {
    const r = await cli(["list", "--data-dir", root]);
    equal(r.code, 0, r.stderr);
    ok(
      !await Deno.stat(join(root, "index.sqlite")).then(
        () => true,
        () => false,
      ),
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
