import assert from "node:assert/strict";
import { withFs } from "../_fs_seam.ts";
import { join } from "node:path";
import { rewriteWithSlot } from "../../src/write/_slot_rewrite.ts";
import { SessionWriter } from "../../src/write/_writer.ts";
import {
  marshalTitleSlot,
  TITLE_SLOT_BYTES,
} from "../../src/format/title_slot.ts";
import { type Fs, type FsHandle, realFs } from "../../src/fs/_seam.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const IS_WINDOWS = Deno.build.os === "windows";
const CAN_SET_UMASK =
  (await Deno.permissions.query({ name: "sys" })).state === "granted";

const AT = "2026-10-01T09:00:00.000Z";
const HEADER =
  '{"type":"session","version":3,"id":"01a0f000-0000-7000-8000-000000000001","timestamp":"2026-10-01T09:00:00.000Z","cwd":"/tmp"}';
const MESSAGE =
  '{"type":"message","id":"0a000001","parentId":null,"timestamp":"2026-10-01T09:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1790845201000}}';

/** The new-session slot for {@linkcode AT}. */
const SLOT = marshalTitleSlot({ title: "", updatedAt: AT });

/** Slot + header + one message, each line ending in "\n". */
function body(): Uint8Array {
  return concat(SLOT, encoder.encode(`${HEADER}\n${MESSAGE}\n`));
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** A temp dir for one test, removed afterwards. */
async function withDir(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "xdev-writer-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The real filesystem, with every handle opened on `path` wrapped by `wrap`. */
function wrapping(
  path: string,
  wrap: (file: FsHandle) => FsHandle,
): Fs {
  return {
    ...realFs,
    openHandle: async (p, options) => {
      const file = await realFs.openHandle(p, options);
      return p === path ? wrap(file) : file;
    },
  };
}

/** `file` with some calls replaced. */
function override(
  file: FsHandle,
  calls: Partial<Pick<FsHandle, "write" | "truncate" | "read">>,
): FsHandle {
  return {
    write: (p) => file.write(p),
    read: (p) => file.read(p),
    seek: (offset, whence) => file.seek(offset, whence),
    truncate: (len) => file.truncate(len),
    stat: () => file.stat(),
    tryLock: (exclusive) => file.tryLock(exclusive),
    unlock: () => file.unlock(),
    syncData: () => file.syncData(),
    close: () => file.close(),
    [Symbol.dispose]: () => file.close(),
    ...calls,
  };
}

async function names(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) out.push(entry.name);
  return out.sort();
}

async function mode(path: string): Promise<number> {
  return (await Deno.stat(path)).mode! & 0o777;
}

/** A pid that just exited. */
async function deadPid(): Promise<number> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", ""],
    stdout: "null",
    stderr: "null",
  }).spawn();
  await child.status;
  return child.pid;
}

Deno.test("SessionWriter.create() writes the body, then append() adds lines byte for byte", async () => {
  await withDir(async (dir) => {
    const path = join(dir, "s.jsonl");
    const writer = await SessionWriter.create(path, body());
    assert.equal(writer.size, body().length);
    await writer.append(['{"n":1}']);
    await writer.append(['{"n":2}', '{"n":3}']);
    await writer.append([]);
    assert.equal(writer.size, body().length + 24);
    await writer.close();
    await writer.close();
    assert.deepEqual(
      await Deno.readFile(path),
      concat(body(), encoder.encode('{"n":1}\n{"n":2}\n{"n":3}\n')),
    );
    assert.deepEqual(await names(dir), [".s.jsonl.lock.os", "s.jsonl"]);
  });
});

Deno.test(
  "SessionWriter.create() makes the file 0600 and only the folders it creates 0700, whatever the umask",
  {
    ignore: IS_WINDOWS,
  },
  async () => {
    await withDir(async (dir) => {
      await Deno.chmod(dir, 0o755);
      const path = join(dir, "a", "b", "s.jsonl");
      const previous = CAN_SET_UMASK ? Deno.umask(0o277) : undefined;
      try {
        await (await SessionWriter.create(path, body())).close();
      } finally {
        if (previous !== undefined) Deno.umask(previous);
      }
      assert.equal(await mode(path), 0o600);
      assert.equal(await mode(join(dir, "a")), 0o700);
      assert.equal(await mode(join(dir, "a", "b")), 0o700);
      assert.equal(await mode(dir), 0o755);
    });
  },
);

Deno.test("SessionWriter.create() refuses an existing file and a bad body", async (t) => {
  await withDir(async (dir) => {
    const path = join(dir, "s.jsonl");
    await Deno.writeTextFile(path, "old\n");
    await t.step("an existing file is left alone", async () => {
      await assert.rejects(
        SessionWriter.create(path, body()),
        Deno.errors.AlreadyExists,
      );
      assert.equal(await Deno.readTextFile(path), "old\n");
    });
    await t.step("a body not ending in a newline is a TypeError", async () => {
      await assert.rejects(
        SessionWriter.create(join(dir, "t.jsonl"), encoder.encode("{}")),
        TypeError,
      );
      await assert.rejects(
        SessionWriter.create(join(dir, "t.jsonl"), new Uint8Array()),
        TypeError,
      );
    });
    await t.step("a negative lock timeout is a RangeError", async () => {
      await assert.rejects(
        SessionWriter.create(join(dir, "t.jsonl"), body(), {
          lockTimeoutMs: -1,
        }),
        RangeError,
      );
    });
  });
});

Deno.test("SessionWriter.create() removes the partial file when the write fails", async () => {
  await withDir(async (dir) => {
    const path = join(dir, "s.jsonl");
    const full = Object.assign(new Error("No space left on device"), {
      code: "ENOSPC",
    });
    const fs = wrapping(path, (file) =>
      override(file, {
        write: async (p) => {
          if (p.length > 10) return await file.write(p.subarray(0, 10));
          throw full;
        },
      }));
    await withFs(fs, async () => {
      await assert.rejects(SessionWriter.create(path, body()), (err) => {
        assert.ok(err instanceof Error);
        assert.equal(err.cause, full);
        assert.match(
          err.message,
          /^Cannot create ".*s\.jsonl": No space left on device$/,
        );
        return true;
      });
    });
    assert.deepEqual(await names(dir), [".s.jsonl.lock.os"]);
  });
});

Deno.test("SessionWriter.open() closes a torn last line before the next append", async (t) => {
  await withDir(async (dir) => {
    const path = join(dir, "s.jsonl");
    const torn = concat(body(), encoder.encode('{"type":"message","id":"0a0'));
    await Deno.writeFile(path, torn);
    await t.step("the torn line stays byte-identical and alone", async () => {
      await using writer = await SessionWriter.open(path);
      await writer.append(['{"n":1}']);
      await writer.append(['{"n":2}']);
      assert.deepEqual(
        await Deno.readFile(path),
        concat(torn, encoder.encode('\n{"n":1}\n{"n":2}\n')),
      );
    });
    await t.step(
      "a tail torn by another writer after open() is closed too",
      async () => {
        await using writer = await SessionWriter.open(path);
        await Deno.writeTextFile(path, '{"x":', { append: true });
        await writer.append(['{"n":3}']);
        const text = await Deno.readTextFile(path);
        assert.ok(text.endsWith('{"n":2}\n{"x":\n{"n":3}\n'));
      },
    );
  });
});

Deno.test("SessionWriter.open() refuses a missing file", async () => {
  await withDir(async (dir) => {
    await assert.rejects(
      SessionWriter.open(join(dir, "none.jsonl")),
      Deno.errors.NotFound,
    );
    assert.deepEqual(await names(dir), []);
  });
});

Deno.test("SessionWriter.append() writes a batch in one write call, lines in order", async () => {
  await withDir(async (dir) => {
    const path = join(dir, "s.jsonl");
    await Deno.writeFile(path, body());
    let writes = 0;
    const fs = wrapping(path, (file) =>
      override(file, {
        write: (p) => {
          writes++;
          return file.write(p);
        },
      }));
    const lines = Array.from({ length: 50 }, (_, i) => `{"n":${i}}`);
    await withFs(fs, async () => {
      await using writer = await SessionWriter.open(path);
      await writer.append(lines);
    });
    assert.equal(writes, 1);
    assert.deepEqual(
      await Deno.readFile(path),
      concat(body(), encoder.encode(lines.map((l) => `${l}\n`).join(""))),
    );
  });
});

Deno.test("SessionWriter.append() refuses bad lines without quoting them", async () => {
  await withDir(async (dir) => {
    const path = join(dir, "s.jsonl");
    await Deno.writeFile(path, body());
    await using writer = await SessionWriter.open(path);
    await assert.rejects(writer.append(["ok", "sec\nret"]), (err) => {
      assert.ok(err instanceof TypeError);
      assert.match(err.message, /^Cannot append to ".*s\.jsonl": line 1 /);
      assert.ok(!err.message.includes("sec"));
      return true;
    });
    await assert.rejects(
      writer.append("x" as unknown as string[]),
      TypeError,
    );
    assert.equal(writer.error, undefined);
    assert.deepEqual(await Deno.readFile(path), body());
  });
});

Deno.test("SessionWriter.append() loops on short writes", async () => {
  await withDir(async (dir) => {
    const path = join(dir, "s.jsonl");
    const fs = wrapping(
      path,
      (file) => override(file, { write: (p) => file.write(p.subarray(0, 1)) }),
    );
    await withFs(fs, async () => {
      await using writer = await SessionWriter.create(path, body());
      await writer.append(['{"n":1}', '{"é":"✓"}']);
    });
    assert.deepEqual(
      await Deno.readFile(path),
      concat(body(), encoder.encode('{"n":1}\n{"é":"✓"}\n')),
    );
  });
});

Deno.test("SessionWriter.append() rolls a failed write back and fails the writer for good", async (t) => {
  await withDir(async (dir) => {
    const path = join(dir, "s.jsonl");
    await Deno.writeFile(path, body());
    const full = Object.assign(
      new Error("No space left on device (os error 28)"),
      { code: "ENOSPC" },
    );
    let writes = 0;
    const fs = wrapping(path, (file) =>
      override(file, {
        write: async (p) => {
          if (++writes === 3) throw full;
          return await file.write(p.subarray(0, 4));
        },
      }));
    await withFs(fs, async () => {
      await using writer = await SessionWriter.open(path);
      await t.step("the failing call throws the error itself", async () => {
        await assert.rejects(writer.append(['{"secret":1}']), (err) => {
          // Named with the action and the file, the OS error as its cause.
          assert.ok(err instanceof Error);
          assert.equal(err.cause, full);
          assert.equal(
            (err as { code?: string }).code,
            (full as { code?: string }).code,
          );
          assert.ok(
            err.message.startsWith(
              `Cannot append to ${JSON.stringify(path)}: `,
            ),
          );
          assert.ok(!err.message.includes("secret"));
          return true;
        });
        assert.equal(writer.error!.cause, full);
        assert.equal(writer.size, body().length);
      });
      await t.step("the file is cut back to its old size", async () => {
        assert.deepEqual(await Deno.readFile(path), body());
      });
      await t.step(
        "later calls rethrow the first error as the cause",
        async () => {
          for (let i = 0; i < 2; i++) {
            await assert.rejects(writer.append(['{"n":2}']), (err) => {
              assert.ok(err instanceof Error);
              assert.equal((err.cause as Error).cause, full);
              assert.equal(
                err.message,
                `Cannot append to ${
                  JSON.stringify(path)
                }: the writer failed earlier: No space left on device (os error 28)`,
              );
              return true;
            });
          }
          await assert.rejects(writer.rewriteSlot(SLOT), (err) => {
            assert.ok(err instanceof Error);
            assert.equal((err.cause as Error).cause, full);
            return true;
          });
          assert.equal(writes, 3);
        },
      );
    });
    assert.deepEqual(await Deno.readFile(path), body());
  });
});

Deno.test("SessionWriter.append() reports a rollback that fails with the write error", async () => {
  await withDir(async (dir) => {
    const path = join(dir, "s.jsonl");
    await Deno.writeFile(path, body());
    const full = new Error("No space left on device (os error 28)");
    const stuck = new Error("Input/output error (os error 5)");
    let writes = 0;
    const fs = wrapping(path, (file) =>
      override(file, {
        write: async (p) => {
          if (++writes === 2) throw full;
          return await file.write(p.subarray(0, 3));
        },
        truncate: () => Promise.reject(stuck),
      }));
    await withFs(fs, async () => {
      await using writer = await SessionWriter.open(path);
      await assert.rejects(writer.append(['{"n":1}']), (err) => {
        assert.ok(err instanceof AggregateError);
        assert.deepEqual(err.errors, [full, stuck]);
        assert.equal(writer.error, err);
        return true;
      });
    });
  });
});

Deno.test("SessionWriter.append() and close() refuse a closed writer", async () => {
  await withDir(async (dir) => {
    const path = join(dir, "s.jsonl");
    const writer = await SessionWriter.create(path, body());
    const pending = writer.append(['{"n":1}']);
    await writer.close();
    await pending;
    await assert.rejects(
      writer.append(['{"n":2}']),
      /^Error: Cannot append to ".*": the writer is closed$/,
    );
    assert.ok((await Deno.readTextFile(path)).endsWith('{"n":1}\n'));
  });
});

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
      removeSync: (p) => {
        if (p === lock && refused++ === 0) {
          throw new Deno.errors.PermissionDenied("EACCES");
        }
        return realFs.removeSync(p);
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

Deno.test("SessionWriter.rewriteSlot() puts the old slot back when the write fails", async () => {
  await withDir(async (dir) => {
    const path = join(dir, "s.jsonl");
    await Deno.writeFile(path, body());
    const broken = new Error("Input/output error (os error 5)");
    let writes = 0;
    const fs = wrapping(path, (file) =>
      override(file, {
        write: async (p) => {
          if (++writes === 2) throw broken;
          return await file.write(p.subarray(0, 100));
        },
      }));
    await withFs(fs, async () => {
      await using writer = await SessionWriter.open(path);
      const slot = marshalTitleSlot({ title: "New", updatedAt: AT });
      await assert.rejects(writer.rewriteSlot(slot), (err) => {
        assert.equal((err as Error).cause, broken);
        return true;
      });
      assert.equal(writer.error!.cause, broken);
    });
    assert.deepEqual(await Deno.readFile(path), body());
  });
});

Deno.test("SessionWriter.rewriteSlot() overwrites bytes 0..255 only", async (t) => {
  await withDir(async (dir) => {
    const path = join(dir, "s.jsonl");
    await using writer = await SessionWriter.create(path, body());
    await writer.append(['{"n":1}']);
    const before = await Deno.readFile(path);
    const renamed = marshalTitleSlot({
      title: "Renamed ✓",
      source: "manual",
      updatedAt: AT,
    });

    await t.step("the slot changes, the rest is byte-identical", async () => {
      await writer.rewriteSlot(renamed);
      const after = await Deno.readFile(path);
      assert.equal(after.length, before.length);
      assert.deepEqual(after.subarray(0, TITLE_SLOT_BYTES), renamed);
      assert.deepEqual(
        after.subarray(TITLE_SLOT_BYTES),
        before.subarray(TITLE_SLOT_BYTES),
      );
      await writer.append(['{"n":2}']);
      assert.ok((await Deno.readTextFile(path)).endsWith('{"n":1}\n{"n":2}\n'));
    });

    await t.step(
      "a slot of the wrong size or shape is a RangeError",
      async () => {
        await assert.rejects(
          writer.rewriteSlot(renamed.subarray(1)),
          RangeError,
        );
        const early = renamed.slice();
        early[10] = 10;
        await assert.rejects(writer.rewriteSlot(early), RangeError);
        const unended = renamed.slice();
        unended[TITLE_SLOT_BYTES - 1] = 32;
        await assert.rejects(writer.rewriteSlot(unended), RangeError);
      },
    );
  });

  await withDir(async (dir) => {
    await t.step(
      "a file whose line 1 is not 256 bytes is refused untouched",
      async () => {
        const path = join(dir, "legacy.jsonl");
        const legacy = encoder.encode(`${HEADER}\n${MESSAGE}\n`);
        await Deno.writeFile(path, legacy);
        await using writer = await SessionWriter.open(path);
        await assert.rejects(
          writer.rewriteSlot(SLOT),
          /line 1 is not 256 bytes; rewrite the whole file instead/,
        );
        assert.equal(writer.error, undefined);
        assert.deepEqual(await Deno.readFile(path), legacy);
      },
    );
  });
});

Deno.test("rewriteWithSlot() gives a file the 256-byte slot atomically", async (t) => {
  await withDir(async (dir) => {
    const renamed = marshalTitleSlot({ title: "Hi", updatedAt: AT });
    const rest = encoder.encode(`${HEADER}\n${MESSAGE}\n`);

    await t.step(
      "a slot-less file keeps all its bytes after the slot",
      async () => {
        const path = join(dir, "legacy.jsonl");
        await Deno.writeFile(path, rest);
        await using writer = await SessionWriter.open(path);
        await rewriteWithSlot(path, renamed, { dropFirstLine: false });
        assert.deepEqual(await Deno.readFile(path), concat(renamed, rest));
        if (!IS_WINDOWS) assert.equal(await mode(path), 0o600);
        await writer.append(['{"n":1}']);
        await writer.rewriteSlot(SLOT);
        assert.deepEqual(
          await Deno.readFile(path),
          concat(SLOT, rest, encoder.encode('{"n":1}\n')),
        );
      },
    );

    await t.step("a short malformed slot is replaced", async () => {
      const path = join(dir, "short.jsonl");
      await Deno.writeFile(
        path,
        concat(encoder.encode('{"type":"title","v":1,"title":"x"}\n'), rest),
      );
      await rewriteWithSlot(path, renamed, { dropFirstLine: true });
      assert.deepEqual(await Deno.readFile(path), concat(renamed, rest));
    });

    await t.step("a file of several copy buffers is copied whole", async () => {
      const path = join(dir, "big.jsonl");
      const line = `{"pad":"${"x".repeat(1000)}"}\n`;
      const big = concat(rest, encoder.encode(line.repeat(3_000)));
      await Deno.writeFile(path, big);
      await rewriteWithSlot(path, renamed, { dropFirstLine: false });
      assert.deepEqual(await Deno.readFile(path), concat(renamed, big));
    });

    await t.step(
      "dropFirstLine that disagrees with line 1 is refused",
      async () => {
        const path = join(dir, "legacy.jsonl");
        const before = await Deno.readFile(path);
        await assert.rejects(
          rewriteWithSlot(path, renamed, { dropFirstLine: false }),
          /line 1 is a title record, but dropFirstLine is false/,
        );
        const headerFirst = join(dir, "h.jsonl");
        await Deno.writeFile(headerFirst, rest);
        await assert.rejects(
          rewriteWithSlot(headerFirst, renamed, { dropFirstLine: true }),
          /line 1 is not a title record, but dropFirstLine is true/,
        );
        assert.deepEqual(await Deno.readFile(path), before);
        assert.deepEqual(await Deno.readFile(headerFirst), rest);
        await assert.rejects(
          rewriteWithSlot(headerFirst, renamed.subarray(2), {
            dropFirstLine: false,
          }),
          RangeError,
        );
      },
    );

    await t.step(
      "a file that grows during the copy is left as it was",
      async () => {
        const path = join(dir, "grows.jsonl");
        await Deno.writeFile(path, rest);
        let reads = 0;
        const fs = wrapping(path, (file) =>
          override(file, {
            read: async (p) => {
              if (++reads === 2) {
                await Deno.writeTextFile(path, '{"late":1}\n', {
                  append: true,
                });
              }
              return await file.read(p);
            },
          }));
        await withFs(fs, async () => {
          await assert.rejects(
            rewriteWithSlot(path, renamed, { dropFirstLine: false }),
            /the file changed during the copy/,
          );
        });
        assert.deepEqual(
          await Deno.readFile(path),
          concat(rest, encoder.encode('{"late":1}\n')),
        );
      },
    );

    const left = (await names(dir)).filter((n) => n.endsWith(".tmp"));
    assert.deepEqual(left, []);
  });
});

Deno.test("SessionWriter.append() from 4 writers at once keeps every line whole", async () => {
  await withDir(async (dir) => {
    const path = join(dir, "s.jsonl");
    await (await SessionWriter.create(path, body())).close();
    const writers = await Promise.all(
      [0, 1, 2, 3].map(() => SessionWriter.open(path)),
    );
    try {
      await Promise.all(writers.map(async (writer, w) => {
        for (let i = 0; i < 200; i++) {
          await writer.append([
            JSON.stringify({ w, i, pad: "y".repeat(w * 50) }),
          ]);
        }
      }));
    } finally {
      await Promise.all(writers.map((writer) => writer.close()));
    }
    const text = decoder.decode(await Deno.readFile(path));
    assert.ok(text.startsWith(decoder.decode(body())));
    const lines = text.slice(body().length).split("\n");
    assert.equal(lines.pop(), "");
    assert.equal(lines.length, 800);
    const next = [0, 0, 0, 0];
    for (const line of lines) {
      const { w, i, pad } = JSON.parse(line) as {
        w: number;
        i: number;
        pad: string;
      };
      assert.equal(i, next[w]);
      assert.equal(pad, "y".repeat(w * 50));
      next[w] = i + 1;
    }
    assert.deepEqual(next, [200, 200, 200, 200]);
  });
});
