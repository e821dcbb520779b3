/**
 * The lock every write takes (`src/write/_lock.ts`):
 * omp's lock file, the OS gate, what is stale, and the clear errors for
 * what can never be released.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { withFs } from "../_fs_seam.ts";
import { type Fs, realFs } from "../../src/_fs.ts";
import { SessionWriter } from "../../src/write/_writer.ts";
import { body, deadPid, names, override, withDir } from "./_writer_files.ts";

Deno.test("SessionWriter.append() takes omp's lock", async (t) => {
  await withDir(async (dir) => {
    const path = join(dir, "s.jsonl");
    const lock = join(dir, ".s.jsonl.lock");
    await Deno.writeFile(path, body());
    await using writer = await SessionWriter.open(path, { lockTimeoutMs: 120 });

    await t.step("the lock file is removed after each append", async () => {
      await writer.append(['{"n":1}']);
      assert.deepEqual(await names(dir), [".s.jsonl.lock.os", "s.jsonl"]);
    });

    await t.step(
      "a lock held by a live pid makes append wait, then fail",
      async () => {
        const held = "1:1790845200000\n"; // pid 1 is always alive
        await Deno.writeTextFile(
          path.replace("s.jsonl", ".s.jsonl.lock"),
          held,
        );
        const started = Date.now();
        await assert.rejects(writer.append(['{"n":2}']), (err) => {
          assert.ok(err instanceof Deno.errors.TimedOut);
          assert.equal(
            err.message,
            `Cannot append to ${
              JSON.stringify(path)
            }: process 1 has held the lock file ${
              JSON.stringify(lock)
            } since 2026-10-01T09:00:00.000Z: remove it if process 1 is not a writer of this session (waited 120 ms for the lock)`,
          );
          return true;
        });
        assert.ok(Date.now() - started >= 110);
        assert.equal(await Deno.readTextFile(lock), held);
        assert.equal(writer.error, undefined);
        assert.ok((await Deno.readTextFile(path)).endsWith('{"n":1}\n'));
        await Deno.remove(lock);
      },
    );

    await t.step("a lock released within the wait is taken", async () => {
      await Deno.writeTextFile(lock, "1:1790845200000\n");
      const release = setTimeout(() => Deno.removeSync(lock), 30);
      try {
        await writer.append(['{"n":3}']);
      } finally {
        clearTimeout(release);
      }
      assert.ok((await Deno.readTextFile(path)).endsWith('{"n":3}\n'));
    });

    await t.step("a lock whose pid is dead is taken over", async () => {
      await Deno.writeTextFile(lock, `${await deadPid()}:${Date.now()}\n`);
      await writer.append(['{"n":4}']);
      assert.ok((await Deno.readTextFile(path)).endsWith('{"n":4}\n'));
      assert.deepEqual(await names(dir), [".s.jsonl.lock.os", "s.jsonl"]);
    });

    await t.step(
      "a lock without a record is stale only past 500 ms",
      async () => {
        await Deno.writeTextFile(lock, "");
        await assert.rejects(
          writer.append(['{"n":5}']),
          Deno.errors.TimedOut,
        );
        const old = new Date(Date.now() - 2_000);
        await Deno.utime(lock, old, old);
        await writer.append(['{"n":6}']);
        const text = await Deno.readTextFile(path);
        assert.ok(text.endsWith('{"n":4}\n{"n":6}\n'));
        assert.deepEqual(await names(dir), [".s.jsonl.lock.os", "s.jsonl"]);
      },
    );

    await t.step(
      "the OS gate (flock on .lock.os) held elsewhere blocks too",
      async () => {
        using gate = await Deno.open(join(dir, ".s.jsonl.lock.os"), {
          read: true,
          write: true,
        });
        assert.ok(await gate.tryLock(true));
        await assert.rejects(writer.append(['{"n":7}']), (err) => {
          assert.ok(err instanceof Deno.errors.TimedOut);
          assert.match(
            err.message,
            /another process holds the OS lock on ".*\/\.s\.jsonl\.lock\.os" \(a flock, released when that process exits\)/,
          );
          return true;
        });
        await gate.unlock();
        await writer.append(['{"n":8}']);
        assert.ok(
          (await Deno.readTextFile(path)).endsWith('{"n":6}\n{"n":8}\n'),
        );
      },
    );
  });
});

Deno.test("SessionWriter.append() takes over its own lock file that it failed to remove", async () => {
  await withDir(async (dir) => {
    const path = join(dir, "s.jsonl");
    const lock = join(dir, ".s.jsonl.lock");
    await Deno.writeFile(path, body());
    await using writer = await SessionWriter.open(path, { lockTimeoutMs: 100 });
    let refused = 0;
    const fs: Fs = {
      ...realFs,
      remove: (p) => {
        if (p === lock && refused++ === 0) {
          return Promise.reject(new Deno.errors.PermissionDenied("EACCES"));
        }
        return realFs.remove(p);
      },
    };
    await withFs(fs, async () => {
      await writer.append(['{"n":1}']);
      assert.match(await Deno.readTextFile(lock), new RegExp(`^${Deno.pid}:`));
      await writer.append(['{"n":2}']);
    });
    assert.deepEqual(await names(dir), [".s.jsonl.lock.os", "s.jsonl"]);
    assert.ok((await Deno.readTextFile(path)).endsWith('{"n":1}\n{"n":2}\n'));
  });
});

Deno.test(
  "SessionWriter.append() fails at once, naming the lock file, on a FIFO, a folder or a dangling link at the lock path",
  {
    ignore: Deno.build.os === "windows",
  },
  async (t) => {
    for (const layer of [".s.jsonl.lock", ".s.jsonl.lock.os"]) {
      const cases: [string, string, (p: string) => Promise<void>][] = [
        ["a FIFO (named pipe)", "FIFO", async (p) => {
          const made = await new Deno.Command("mkfifo", { args: [p] }).output();
          assert.ok(made.success);
        }],
        ["a folder", "folder", (p) => Deno.mkdir(p)],
        ["a symbolic link", "dangling link", (p) => Deno.symlink("gone", p)],
      ];
      for (const [what, name, make] of cases) {
        await t.step(`${name} at ${layer}`, async () => {
          await withDir(async (dir) => {
            const path = join(dir, "s.jsonl");
            const lock = join(dir, layer);
            await Deno.writeFile(path, body());
            await make(lock);
            // A generous wait: the error must come at once, not at its end.
            await using writer = await SessionWriter.open(path, {
              lockTimeoutMs: 10_000,
            });
            // Every call of the seam on the lock path: a wait polls it every
            // few ms, for the whole 10 s; refusing at once takes a try or two.
            let tries = 0;
            const counting = new Proxy(realFs, {
              get(target, key) {
                const value = Reflect.get(target, key);
                if (typeof value !== "function") return value;
                return (...args: unknown[]) => {
                  if (args[0] === lock) tries++;
                  return value.apply(target, args);
                };
              },
            });
            const failed = withFs(counting, () => writer.append(['{"n":1}']));
            await assert.rejects(failed, (err) => {
              assert.ok(!(err instanceof Deno.errors.TimedOut));
              assert.ok(err instanceof Error);
              assert.ok(
                err.message.startsWith(
                  `Cannot append to ${JSON.stringify(path)}: the lock ${
                    layer.endsWith(".os") ? "gate" : "file"
                  } ${JSON.stringify(lock)} is ${what}`,
                ),
                err.message,
              );
              assert.match(
                err.message,
                /remove it if no process is writing this session$/,
              );
              return true;
            });
            assert.ok(tries <= 3, `no wait: ${tries} tries of the lock path`);
            assert.equal(
              writer.error,
              undefined,
              "nothing written: not failed",
            );
            assert.deepEqual(await Deno.readFile(path), body());
            await Deno.remove(lock);
            await writer.append(['{"n":2}']);
            assert.ok((await Deno.readTextFile(path)).endsWith('{"n":2}\n'));
          });
        });
      }
    }
  },
);

Deno.test("SessionWriter.append() takes over a lock file naming its own pid that it does not hold", async () => {
  await withDir(async (dir) => {
    const path = join(dir, "s.jsonl");
    const lock = join(dir, ".s.jsonl.lock");
    await Deno.writeFile(path, body());
    // Left by an earlier process that had this pid (pid 1 in a container,
    // an agent restarted), written just now: not stale by age.
    await Deno.writeTextFile(lock, `${Deno.pid}:${Date.now()}\n`);
    await using writer = await SessionWriter.open(path, { lockTimeoutMs: 200 });
    await writer.append(['{"n":1}']);
    assert.ok((await Deno.readTextFile(path)).endsWith('{"n":1}\n'));
    assert.deepEqual(await names(dir), [".s.jsonl.lock.os", "s.jsonl"]);
  });
});

Deno.test("SessionWriter.append() never takes over a lock file this process holds", async () => {
  await withDir(async (dir) => {
    const path = join(dir, "s.jsonl");
    const lock = join(dir, ".s.jsonl.lock");
    await Deno.writeFile(path, body());
    // Two writers of one file in one process, the second through another
    // path to it (its own queue), and a gate that orders nothing (as on a
    // filesystem without flock): only the lock file orders them, and its
    // record, with our pid, must not look stale to the second.
    await Deno.symlink(dir, `${dir}-alias`);
    const release = Promise.withResolvers<void>();
    const held = Promise.withResolvers<void>();
    const fs: Fs = {
      ...realFs,
      open: async (p, options) => {
        const file = await realFs.open(p, options);
        if (p.endsWith(".lock.os")) {
          return override(file, {
            tryLock: () => Promise.resolve(true),
            unlock: () => Promise.resolve(),
          });
        }
        if (p !== path) return file;
        return override(file, {
          write: async (b, at) => {
            held.resolve();
            await release.promise;
            return await file.write(b, at);
          },
        });
      },
    };
    try {
      await withFs(fs, async () => {
        await using a = await SessionWriter.open(path);
        await using b = await SessionWriter.open(`${dir}-alias/s.jsonl`, {
          lockTimeoutMs: 60,
        });
        const first = a.append(['{"w":"a"}']);
        await held.promise; // a holds the lock file, mid-write
        assert.match(
          await Deno.readTextFile(lock),
          new RegExp(`^${Deno.pid}:`),
        );
        await assert.rejects(b.append(['{"w":"b"}']), Deno.errors.TimedOut);
        release.resolve();
        await first;
      });
    } finally {
      await Deno.remove(`${dir}-alias`);
    }
    assert.ok((await Deno.readTextFile(path)).endsWith('{"w":"a"}\n'));
  });
});

Deno.test("SessionWriter.append() on a full disk while creating the lock file names the session and the lock file", async (t) => {
  const enospc = () =>
    Object.assign(new Error("No space left on device (os error 28)"), {
      code: "ENOSPC",
    });
  for (const where of ["create", "record"] as const) {
    await t.step(`ENOSPC on the lock file's ${where}`, async () => {
      await withDir(async (dir) => {
        const path = join(dir, "s.jsonl");
        const lock = join(dir, ".s.jsonl.lock");
        await Deno.writeFile(path, body());
        await using writer = await SessionWriter.open(path);
        const full = enospc();
        const fs: Fs = {
          ...realFs,
          open: async (p, options) => {
            if (p !== lock) return await realFs.open(p, options);
            if (where === "create") throw full;
            const file = await realFs.open(p, options);
            return override(file, { write: () => Promise.reject(full) });
          },
        };
        await withFs(fs, async () => {
          await assert.rejects(writer.append(['{"n":1}']), (err) => {
            assert.ok(err instanceof Error);
            assert.equal(
              err.message,
              `Cannot append to ${JSON.stringify(path)}: cannot ${
                where === "create" ? "create" : "write"
              } the lock file ${
                JSON.stringify(lock)
              }: No space left on device (os error 28)`,
            );
            assert.equal((err as { code?: string }).code, "ENOSPC");
            assert.equal(err.cause, full);
            return true;
          });
        });
        assert.equal(writer.error, undefined);
        assert.deepEqual(await names(dir), [".s.jsonl.lock.os", "s.jsonl"]);
        await writer.append(['{"n":2}']);
        assert.ok((await Deno.readTextFile(path)).endsWith('{"n":2}\n'));
      });
    });
  }
});

Deno.test("SessionWriter.append() holds nothing when its new lock file was replaced before the check", async () => {
  await withDir(async (dir) => {
    const path = join(dir, "s.jsonl");
    const lock = join(dir, ".s.jsonl.lock");
    await Deno.writeFile(path, body());
    await using writer = await SessionWriter.open(path, { lockTimeoutMs: 60 });
    const theirs = "1:1790845200000\n"; // pid 1: alive
    let stolen = false;
    const fs: Fs = {
      ...realFs,
      open: async (p, options) => {
        const file = await realFs.open(p, options);
        if (p === lock && !stolen) {
          // Between our create and our record, another writer takes the
          // name (a steal that found our file empty and thought it stale).
          stolen = true;
          await realFs.remove(lock);
          await Deno.writeTextFile(lock, theirs);
        }
        return file;
      },
    };
    await withFs(fs, async () => {
      await assert.rejects(
        writer.append(['{"n":1}']),
        Deno.errors.TimedOut,
      );
    });
    assert.ok(stolen);
    assert.equal(await Deno.readTextFile(lock), theirs);
    assert.deepEqual(await Deno.readFile(path), body());
  });
});

Deno.test("SessionWriter keeps its gate open between appends, and locks a gate file made anew", async () => {
  await withDir(async (dir) => {
    const path = join(dir, "s.jsonl");
    const gatePath = join(dir, ".s.jsonl.lock.os");
    await Deno.writeFile(path, body());
    await using writer = await SessionWriter.open(path, { lockTimeoutMs: 80 });
    await writer.append(['{"n":1}']);
    // Someone removes the gate file; another process makes it anew and
    // holds it.
    await Deno.remove(gatePath);
    using other = await Deno.open(gatePath, {
      read: true,
      write: true,
      createNew: true,
    });
    assert.ok(await other.tryLock(true));
    await assert.rejects(writer.append(['{"n":2}']), (err) => {
      assert.ok(err instanceof Deno.errors.TimedOut);
      assert.match(err.message, /OS lock/);
      return true;
    });
    await other.unlock();
    await writer.append(['{"n":3}']);
    const text = await Deno.readTextFile(path);
    assert.ok(text.endsWith('{"n":1}\n{"n":3}\n'));
  });
});
