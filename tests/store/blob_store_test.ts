import assert from "node:assert/strict";
import { override, withFs } from "../_fs_seam.ts";
import { join } from "node:path";
import { BlobStore, imageExtension } from "../../src/store/blob_store.ts";
import { type FileHandle, type Fs, realFs } from "../../src/_fs.ts";

const encoder = new TextEncoder();
const IS_WINDOWS = Deno.build.os === "windows";
const OMP_BLOBS = new URL("../../fixtures/omp/blobs/", import.meta.url);
/** Deno.umask() needs the whole --allow-sys, which `deno task test` does not grant. */
const CAN_SET_UMASK =
  (await Deno.permissions.query({ name: "sys" })).state === "granted";

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes as BufferSource);
  return new Uint8Array(digest).toHex();
}

/** A temp data dir for one test, removed afterwards. */
async function withDataDir(
  fn: (dataDir: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "xdev-blobs-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** `fs` with every call counted by name into `calls`. */
function counted<T extends object>(fs: T, calls: Map<string, number>): T {
  return Object.fromEntries(
    Object.entries(fs).map(([name, op]) => [
      name,
      typeof op !== "function" ? op : (...args: unknown[]) => {
        calls.set(name, (calls.get(name) ?? 0) + 1);
        return (op as (...a: unknown[]) => unknown)(...args);
      },
    ]),
  ) as T;
}

/** The real filesystem, counting the calls by name. */
function countingFs(): { fs: Fs; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  return { fs: counted(realFs, calls), calls };
}

/** A filesystem that fails the test on any call. */
function failing<T extends object>(): T {
  return new Proxy({} as T, {
    get: (_target, name) => () => {
      throw new Error(`unexpected filesystem call: ${String(name)}`);
    },
  });
}

/** Runs `fn` with a filesystem that fails the test on any call. */
function withNoFs(fn: () => Promise<void>): Promise<void> {
  return withFs(failing<Fs>(), fn);
}

async function names(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) out.push(entry.name);
  return out.sort();
}

/** A file that hands the real file at most `chunk` bytes per write. */
function shortWrites(file: FileHandle, chunk: number): FileHandle {
  return override(file, {
    write: (p, at) => file.write(p.subarray(0, chunk), at),
  });
}

Deno.test("BlobStore.put() stores bytes under their SHA-256 and get() and has() find them", async (t) => {
  await withDataDir(async (dataDir) => {
    const store = new BlobStore(join(dataDir, "blobs"));
    const bytes = encoder.encode("a screenshot, say");
    const hex = await sha256Hex(bytes);
    const ref = `blob:sha256:${hex}`;

    await t.step(
      "a missing blob (and folder) reads as undefined and creates nothing",
      async () => {
        assert.equal(await store.get(ref), undefined);
        assert.equal(await store.has(ref), false);
        assert.equal(await store.verify(ref), false);
        assert.deepEqual(await names(dataDir), []);
      },
    );
    await t.step(
      "put() returns blob:sha256:<hex> and writes <dir>/<hex>",
      async () => {
        assert.equal(await store.put(bytes), ref);
        assert.equal(store.path(ref), join(dataDir, "blobs", hex));
        assert.deepEqual(
          await Deno.readFile(join(dataDir, "blobs", hex)),
          bytes,
        );
        assert.deepEqual(await names(join(dataDir, "blobs")), [hex]);
      },
    );
    await t.step("get(), has() and verify() find it", async () => {
      assert.deepEqual(await store.get(ref), bytes);
      assert.equal(await store.has(ref), true);
      assert.equal(await store.verify(ref), true);
    });
    await t.step("the empty blob is a blob too", async () => {
      const empty = await store.put(new Uint8Array(0));
      assert.equal(empty, `blob:sha256:${await sha256Hex(new Uint8Array(0))}`);
      assert.deepEqual(await store.get(empty), new Uint8Array(0));
    });
    await t.step("dir is the folder given", () => {
      assert.equal(store.dir, join(dataDir, "blobs"));
    });
  });
});

Deno.test("BlobStore works with a folder path that is not normalized", async () => {
  await withDataDir(async (dataDir) => {
    const store = new BlobStore(`${dataDir}//./blobs/`);
    const bytes = encoder.encode("trailing slash");
    const hex = await sha256Hex(bytes);
    const ref = await store.put(bytes, { ext: "png" });
    assert.equal(ref, `blob:sha256:${hex}`);
    assert.deepEqual(await names(join(dataDir, "blobs")), [hex, `${hex}.png`]);
    assert.deepEqual(await store.get(ref), bytes);
  });
});

Deno.test("BlobStore.put() names omp's fixture blobs as omp did, and reads omp's store", async () => {
  const omp = new BlobStore(OMP_BLOBS.pathname);
  const hexes = (await names(OMP_BLOBS.pathname)).filter((n) =>
    /^[0-9a-f]{64}$/.test(n)
  );
  assert.ok(hexes.length > 0);
  await withDataDir(async (dataDir) => {
    const store = new BlobStore(join(dataDir, "blobs"));
    for (const hex of hexes) {
      const bytes = await omp.get(`blob:sha256:${hex}`);
      assert.ok(bytes !== undefined);
      assert.equal(await omp.verify(`blob:sha256:${hex}`), true);
      assert.equal(
        await store.put(bytes, { ext: "png" }),
        `blob:sha256:${hex}`,
      );
    }
  });
});

Deno.test("BlobStore.put() is idempotent: a second put of the same bytes writes nothing but the blob's time", async () => {
  await withDataDir(async (dataDir) => {
    const store = new BlobStore(join(dataDir, "blobs"));
    const bytes = encoder.encode("same bytes");
    const ref = await store.put(bytes);
    const then = new Date(Date.now() - 2 * 3_600_000);
    await Deno.utime(store.path(ref), then, then);
    const before = await Deno.stat(store.path(ref));
    const { fs, calls } = countingFs();
    await withFs(fs, async () => {
      assert.equal(await store.put(bytes), ref);
    });
    // It looked (so the counts below are of its calls), and wrote nothing.
    assert.ok(calls.size > 0, "the second put asked the filesystem");
    for (const name of ["open", "rename", "mkdir", "chmod", "link", "remove"]) {
      assert.equal(
        calls.get(name),
        undefined,
        `no ${name}() on the second put`,
      );
    }
    const after = await Deno.stat(store.path(ref));
    assert.equal(after.ino, before.ino);
    assert.equal(after.size, before.size);
    // Stored again now: gc's grace period counts from this put (issue 30, item 5).
    assert.ok(after.mtime!.getTime() > Date.now() - 60_000, "time refreshed");
    assert.equal(calls.get("utime"), 1);
    assert.deepEqual(await names(join(dataDir, "blobs")), [
      ref.slice("blob:sha256:".length),
    ]);
  });
});

async function assertModes(store: BlobStore, ref: string): Promise<void> {
  const mode = async (path: string): Promise<number> =>
    ((await Deno.stat(path)).mode ?? 0) & 0o777;
  assert.equal(await mode(store.dir), 0o700, "the folder");
  assert.equal(await mode(store.path(ref)), 0o600, "the blob");
  assert.equal(await mode(`${store.path(ref)}.png`), 0o600, "the twin");
}

Deno.test({
  name:
    "BlobStore.put() makes the folder 0700 and blobs 0600 under a permissive umask",
  ignore: IS_WINDOWS || !CAN_SET_UMASK,
  fn: async () => {
    const umask = Deno.umask(0);
    try {
      await withDataDir(async (dataDir) => {
        const store = new BlobStore(join(dataDir, "agent", "blobs"));
        await assertModes(
          store,
          await store.put(encoder.encode("private"), { ext: "png" }),
        );
      });
    } finally {
      Deno.umask(umask);
    }
  },
});

Deno.test({
  name:
    "BlobStore.put() sets modes explicitly, not only through open() and mkdir()",
  ignore: IS_WINDOWS,
  fn: async () => {
    const fs: Fs = {
      ...realFs,
      open: (path, { mode: _, ...options }) => realFs.open(path, options),
      mkdir: (path) => realFs.mkdir(path, 0o777),
    };
    await withDataDir(async (dataDir) => {
      const store = new BlobStore(join(dataDir, "blobs"));
      let ref = "";
      await withFs(fs, async () => {
        ref = await store.put(encoder.encode("private"), { ext: "png" });
      });
      await assertModes(store, ref);
    });
  },
});

Deno.test("BlobStore refuses a reference the gate refuses, with a TypeError and no filesystem call", async () => {
  const hex = "a".repeat(64);
  const hostile = [
    "",
    "blob:sha256:",
    "blob:sha256:../../etc/passwd",
    `blob:sha256:../${hex.slice(3)}`,
    `blob:sha256:${hex.toUpperCase()}`,
    `blob:sha256:${hex.slice(1)}`,
    `blob:sha256:${hex}a`,
    `blob:sha256:${hex.slice(1)}\0`,
    `blob:sha256:${hex}\0`,
    `blob:sha256:${hex}\n`,
    `blob:sha256:${hex}/`,
    `blob:sha256:/${hex.slice(1)}`,
    "/etc/passwd",
    hex,
    `BLOB:SHA256:${hex}`,
    `blob:sha512:${hex}`,
    ` blob:sha256:${hex}`,
  ];
  const store = new BlobStore("/nonexistent/blobs");
  await withNoFs(async () => {
    for (const ref of hostile) {
      const label = JSON.stringify(ref);
      assert.throws(() => store.path(ref), TypeError, label);
      await assert.rejects(store.get(ref), TypeError, label);
      await assert.rejects(store.has(ref), TypeError, label);
      await assert.rejects(store.verify(ref), TypeError, label);
    }
    for (
      const notString of [undefined, null, 42, {
        toString: () => `blob:sha256:${hex}`,
      }]
    ) {
      assert.throws(
        () => store.path(notString as unknown as string),
        TypeError,
      );
    }
  });
});

Deno.test("BlobStore.put() refuses a bad extension or content with a TypeError and no filesystem call", async () => {
  const store = new BlobStore("/nonexistent/blobs");
  await withNoFs(async () => {
    for (
      const ext of ["", "PNG", ".png", "a/b", "..", "123456789", "p\0g", "png "]
    ) {
      await assert.rejects(
        store.put(new Uint8Array([1]), { ext }),
        TypeError,
        JSON.stringify(ext),
      );
    }
    await assert.rejects(store.put("text" as unknown as Uint8Array), TypeError);
  });
});

Deno.test({
  name: "BlobStore refuses a symlinked blobs folder or blob file",
  ignore: IS_WINDOWS,
  fn: async (t) => {
    await withDataDir(async (dataDir) => {
      const outside = join(dataDir, "outside");
      await Deno.mkdir(outside);
      const bytes = encoder.encode("secret");
      const hex = await sha256Hex(bytes);
      await Deno.writeFile(join(outside, hex), bytes);

      await t.step(
        "a blobs folder that is a link is refused for get, has and put",
        async () => {
          const linked = join(dataDir, "linked-blobs");
          await Deno.symlink(outside, linked);
          const store = new BlobStore(linked);
          await assert.rejects(
            store.get(`blob:sha256:${hex}`),
            /symbolic link/,
          );
          await assert.rejects(
            store.has(`blob:sha256:${hex}`),
            /symbolic link/,
          );
          await assert.rejects(
            store.put(encoder.encode("new")),
            /symbolic link/,
          );
          assert.deepEqual(
            await names(outside),
            [hex],
            "nothing written through the link",
          );
        },
      );
      await t.step(
        "a blob file that is a link is refused for get, has and put",
        async () => {
          const dir = join(dataDir, "blobs");
          await Deno.mkdir(dir);
          await Deno.symlink(join(outside, hex), join(dir, hex));
          const store = new BlobStore(dir);
          await assert.rejects(
            store.get(`blob:sha256:${hex}`),
            /symbolic link/,
          );
          await assert.rejects(
            store.has(`blob:sha256:${hex}`),
            /symbolic link/,
          );
          await assert.rejects(store.put(bytes), /symbolic link/);
        },
      );
      await t.step("a twin that is a link is refused", async () => {
        const dir = join(dataDir, "blobs2");
        await Deno.mkdir(dir);
        const other = encoder.encode("other");
        const otherHex = await sha256Hex(other);
        await Deno.symlink(join(outside, hex), join(dir, `${otherHex}.png`));
        const store = new BlobStore(dir);
        await assert.rejects(store.put(other, { ext: "png" }), /symbolic link/);
        assert.deepEqual(
          await Deno.readFile(join(outside, hex)),
          bytes,
          "the target is untouched",
        );
      });
    });
  },
});

Deno.test("BlobStore.put() with ext adds omp's <hex>.<ext> twin", async (t) => {
  await withDataDir(async (dataDir) => {
    const dir = join(dataDir, "blobs");
    const store = new BlobStore(dir);
    const png = new Uint8Array([
      0x89,
      0x50,
      0x4e,
      0x47,
      0x0d,
      0x0a,
      0x1a,
      0x0a,
      1,
      2,
      3,
    ]);
    const hex = await sha256Hex(png);

    await t.step(
      "the twin is a hard link to the blob; the ref names the bare hash",
      async () => {
        const ref = await store.put(png, { ext: "png" });
        assert.equal(ref, `blob:sha256:${hex}`);
        assert.deepEqual(await names(dir), [hex, `${hex}.png`]);
        if (!IS_WINDOWS) {
          assert.equal(
            (await Deno.stat(join(dir, `${hex}.png`))).ino,
            (await Deno.stat(join(dir, hex))).ino,
          );
        }
      },
    );
    await t.step(
      "a second put with the twin in place changes nothing",
      async () => {
        assert.equal(
          await store.put(png, { ext: "png" }),
          `blob:sha256:${hex}`,
        );
        assert.deepEqual(await names(dir), [hex, `${hex}.png`]);
      },
    );
    await t.step("a twin is added to a blob stored without one", async () => {
      const jpg = encoder.encode("jpeg bytes");
      const jpgHex = await sha256Hex(jpg);
      await store.put(jpg);
      await store.put(jpg, { ext: "jpg" });
      assert.deepEqual(await Deno.readFile(join(dir, `${jpgHex}.jpg`)), jpg);
    });
    await t.step("where links fail, the twin is a copy", async () => {
      const gif = encoder.encode("gif bytes");
      const gifHex = await sha256Hex(gif);
      const fs: Fs = {
        ...realFs,
        link: () =>
          Promise.reject(new Deno.errors.PermissionDenied("no links here")),
      };
      await withFs(fs, async () => {
        await store.put(gif, { ext: "gif" });
      });
      assert.deepEqual(await Deno.readFile(join(dir, `${gifHex}.gif`)), gif);
      if (!IS_WINDOWS) {
        assert.notEqual(
          (await Deno.stat(join(dir, `${gifHex}.gif`))).ino,
          (await Deno.stat(join(dir, gifHex))).ino,
        );
      }
      assert.ok(
        !(await names(dir)).some((n) => n.endsWith(".tmp")),
        "no temp file left",
      );
    });
  });
});

Deno.test("BlobStore.put() leaves no blob and no temp file when the filesystem fails", async (t) => {
  const bytes = encoder.encode("doomed");
  const hex = await sha256Hex(bytes);

  await t.step("rename throws (a crash between write and rename)", async () => {
    await withDataDir(async (dataDir) => {
      const dir = join(dataDir, "blobs");
      const store = new BlobStore(dir);
      const crash = new Error("injected: rename failed");
      await withFs(
        { ...realFs, rename: () => Promise.reject(crash) },
        async () => {
          await assert.rejects(
            store.put(bytes),
            (err) =>
              err instanceof Error && err.cause === crash &&
              err.message.startsWith("Cannot store blob"),
          );
        },
      );
      assert.deepEqual(await names(dir), []);
      assert.equal(await store.has(`blob:sha256:${hex}`), false);
    });
  });
  await t.step("the disk is full mid-write", async () => {
    await withDataDir(async (dataDir) => {
      const dir = join(dataDir, "blobs");
      const store = new BlobStore(dir);
      const full = (file: FileHandle): FileHandle =>
        override(file, {
          write: (p, at) =>
            p.length > 4
              ? file.write(p.subarray(0, 2), at)
              : Promise.reject(new Error("injected: ENOSPC")),
        });
      const fs: Fs = {
        ...realFs,
        open: async (path, options) => full(await realFs.open(path, options)),
      };
      await withFs(fs, async () => {
        await assert.rejects(store.put(bytes), /ENOSPC/);
      });
      assert.deepEqual(await names(dir), []);
    });
  });
  await t.step(
    "a write that makes no progress is an error, not a loop",
    async () => {
      await withDataDir(async (dataDir) => {
        const dir = join(dataDir, "blobs");
        const store = new BlobStore(dir);
        const stuck = (file: FileHandle): FileHandle => shortWrites(file, 0);
        const fs: Fs = {
          ...realFs,
          open: async (path, options) =>
            stuck(await realFs.open(path, options)),
        };
        await withFs(fs, async () => {
          await assert.rejects(store.put(bytes), Deno.errors.WriteZero);
        });
        assert.deepEqual(await names(dir), []);
      });
    },
  );
  await t.step("short writes are completed", async () => {
    await withDataDir(async (dataDir) => {
      const store = new BlobStore(join(dataDir, "blobs"));
      const fs: Fs = {
        ...realFs,
        open: async (path, options) =>
          shortWrites(await realFs.open(path, options), 1),
      };
      let ref = "";
      await withFs(fs, async () => {
        ref = await store.put(bytes);
      });
      assert.deepEqual(await store.get(ref), bytes);
    });
  });
});

Deno.test("BlobStore with sync flushes the blob before renaming it", async () => {
  await withDataDir(async (dataDir) => {
    const order: string[] = [];
    const fs: Fs = {
      ...realFs,
      open: async (path, options) => {
        const file = await realFs.open(path, options);
        return override(file, {
          syncData: async () => {
            order.push(options.write ? "sync file" : "sync folder");
            await file.syncData();
          },
        });
      },
      rename: async (from, to) => {
        order.push("rename");
        await realFs.rename(from, to);
      },
    };
    await withFs(fs, async () => {
      await new BlobStore(join(dataDir, "blobs"), { sync: true }).put(
        encoder.encode("durable"),
      );
      await new BlobStore(join(dataDir, "fast")).put(encoder.encode("fast"));
    });
    const expected = IS_WINDOWS
      ? ["sync file", "rename", "rename"]
      : ["sync file", "rename", "sync folder", "rename"];
    assert.deepEqual(order, expected);
  });
});

Deno.test("BlobStore.verify() is false for a blob whose bytes no longer match its name", async () => {
  await withDataDir(async (dataDir) => {
    const store = new BlobStore(join(dataDir, "blobs"));
    const ref = await store.put(encoder.encode("original"));
    await Deno.chmod(store.path(ref), 0o600);
    await Deno.writeFile(store.path(ref), encoder.encode("tampered"));
    assert.equal(await store.verify(ref), false);
    assert.equal(await store.has(ref), true);
  });
});

Deno.test("imageExtension() maps omp's image MIME types to a twin extension", () => {
  assert.equal(imageExtension("image/png"), "png");
  assert.equal(imageExtension("image/jpeg"), "jpg");
  assert.equal(imageExtension("image/jpg"), "jpg");
  assert.equal(imageExtension("image/gif"), "gif");
  assert.equal(imageExtension("image/webp"), "webp");
  assert.equal(imageExtension("IMAGE/PNG; foo=bar"), "png");
  for (
    const other of [
      "",
      "text/plain",
      "image/",
      "image/../png",
      "constructor",
      "__proto__",
      "toString",
    ]
  ) {
    assert.equal(imageExtension(other), undefined, other);
  }
});

Deno.test("BlobStore.put() of a stored blob: gone meanwhile, it is written anew; a time it may not set is no failure", async (t) => {
  await withDataDir(async (dataDir) => {
    const store = new BlobStore(join(dataDir, "blobs"));
    const bytes = encoder.encode("moved by gc");
    const ref = await store.put(bytes);
    await t.step(
      "gc moved it to the trash between the look and the touch",
      async () => {
        const moving: Fs = {
          ...realFs,
          utime: async (path, a, m) => {
            await Deno.rename(path, join(dataDir, "elsewhere"));
            return realFs.utime(path, a, m);
          },
        };
        assert.equal(await withFs(moving, () => store.put(bytes)), ref);
        assert.deepEqual(await store.get(ref), bytes);
      },
    );
    await t.step("a read-only store or another user's blob", async () => {
      for (const code of ["EPERM", "EACCES", "EROFS"]) {
        const refusing: Fs = {
          ...realFs,
          utime: () => Promise.reject(Object.assign(new Error(code), { code })),
        };
        assert.equal(await withFs(refusing, () => store.put(bytes)), ref, code);
      }
    });
    await t.step("any other failure is the put's", async () => {
      const failing: Fs = {
        ...realFs,
        utime: () =>
          Promise.reject(Object.assign(new Error("EIO"), { code: "EIO" })),
      };
      await assert.rejects(withFs(failing, () => store.put(bytes)), /EIO/);
    });
  });
});
