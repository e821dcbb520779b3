import { equal, ok, rejects } from "node:assert/strict";
import { join } from "node:path";
import { withGcLock } from "../../src/store/_gc_lock.ts";
import { cliInProcess, makeDataDir } from "../_cli.ts";
import { tempDir } from "../_session_files.ts";

async function exists(path: string): Promise<boolean> {
  return await Deno.lstat(path).then(() => true, () => false);
}

Deno.test("withGcLock() holds omp's gc.lock (pid, time) while it works, and removes it", async () => {
  await using dir = await tempDir();
  const lock = join(dir.path, "gc.lock");
  const text = await withGcLock(dir.path, () => Deno.readTextFile(lock));
  ok(
    new RegExp(`^${Deno.pid}\\n\\d{4}-\\d\\d-\\d\\dT.*Z\\n$`).test(text),
    text,
  );
  equal(await exists(lock), false);
  await rejects(
    withGcLock(dir.path, () => Promise.reject(new Error("boom"))),
    /boom/,
  );
  equal(await exists(lock), false);
});

Deno.test("withGcLock() refuses a lock a live process holds, takes over a stale one", async () => {
  await using dir = await tempDir();
  const lock = join(dir.path, "gc.lock");
  await Deno.writeTextFile(lock, `${Deno.pid}\n${new Date().toISOString()}\n`);
  await rejects(
    withGcLock(dir.path, () => Promise.resolve()),
    /gc is already running .* by pid \d+/,
  );
  equal(await exists(lock), true);
  // A pid no process has (past Linux's pid_max), as a crash leaves it.
  await Deno.writeTextFile(lock, `2147483646\n2020-01-01T00:00:00.000Z\n`);
  equal(await withGcLock(dir.path, () => Promise.resolve(7)), 7);
  // No pid: stale only past omp's five minutes.
  await Deno.writeTextFile(lock, `\n${new Date().toISOString()}\n`);
  await rejects(
    withGcLock(dir.path, () => Promise.resolve()),
    /already running/,
  );
  await Deno.writeTextFile(lock, `\n2020-01-01T00:00:00.000Z\n`);
  equal(await withGcLock(dir.path, () => Promise.resolve(8)), 8);
});

Deno.test("cli blobs gc --yes refuses while omp's gc holds the lock; a dry run still reports", async () => {
  await using d = await makeDataDir();
  await Deno.writeTextFile(
    join(d.root, "gc.lock"),
    `${Deno.pid}\n${new Date().toISOString()}\n`,
  );
  const r = await cliInProcess(["blobs", "gc", "--data-dir", d.root, "--yes"]);
  equal(r.code, 1);
  equal(
    r.stderr,
    `error: Cannot collect the blobs of "${d.root}": gc is already running ("${
      join(d.root, "gc.lock")
    }" is held by pid ${Deno.pid})\n`,
  );
  const dry = await cliInProcess(["blobs", "gc", "--data-dir", d.root]);
  equal(dry.code, 0, dry.stderr);
});
