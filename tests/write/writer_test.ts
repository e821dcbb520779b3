import assert from "node:assert/strict";
import { withFs } from "../_fs_seam.ts";
import { join } from "node:path";
import { SessionWriter } from "../../src/write/_writer.ts";
import {
  body,
  CAN_SET_UMASK,
  concat,
  decoder,
  encoder,
  IS_WINDOWS,
  mode,
  names,
  override,
  SLOT,
  withDir,
  wrapping,
} from "./_writer_files.ts";

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
        write: async (p, at) => {
          if (p.length > 10) return await file.write(p.subarray(0, 10), at);
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
        write: (p, at) => {
          writes++;
          return file.write(p, at);
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
      (file) =>
        override(file, { write: (p, at) => file.write(p.subarray(0, 1), at) }),
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
        write: async (p, at) => {
          if (++writes === 3) throw full;
          return await file.write(p.subarray(0, 4), at);
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
          await assert.rejects(writer.retitle(SLOT, []), (err) => {
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
        write: async (p, at) => {
          if (++writes === 2) throw full;
          return await file.write(p.subarray(0, 3), at);
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
