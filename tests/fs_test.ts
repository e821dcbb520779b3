/**
 * The filesystem seam's own promises: positional calls on one handle may
 * overlap (as `pread`/`pwrite` do), errors carry their POSIX code, and a
 * stat says what a path holds in words.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { errorCode, fs, isNotFound, notAFile } from "../src/_fs.ts";

Deno.test("fs(): positional reads and writes on one handle overlap safely, each at its own position", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, "f");
    const bytes = new Uint8Array(1 << 20).map((_, i) => i % 251);
    await Deno.writeFile(path, bytes);
    await using file = await fs().open(path, { read: true, write: true });
    // Many reads in flight at once, at scattered positions.
    const positions = Array.from(
      { length: 64 },
      (_, i) => (i * 7919 * 13) % (bytes.length - 4096),
    );
    const got = await Promise.all(positions.map(async (at) => {
      const p = new Uint8Array(4096);
      const n = await file.read(p, at);
      return { at, n, p };
    }));
    for (const { at, n, p } of got) {
      assert.equal(n, 4096);
      assert.deepEqual(p, bytes.subarray(at, at + 4096), `read at ${at}`);
    }
    // Writes in flight at once, then reads: each landed where it was sent.
    await Promise.all(
      [0, 100_000, 500_000].map((at, i) =>
        file.write(new Uint8Array(10).fill(i + 1), at)
      ),
    );
    for (const [i, at] of [0, 100_000, 500_000].entries()) {
      const p = new Uint8Array(10);
      await file.read(p, at);
      assert.deepEqual(p, new Uint8Array(10).fill(i + 1));
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("fs(): errors carry their POSIX code; notAFile() names what is not a file", async () => {
  const err = await fs().stat("/nonexistent/x").catch((e) => e);
  assert.equal(isNotFound(err), true);
  assert.equal(errorCode(err), "ENOENT");
  assert.equal(notAFile(await fs().stat("/tmp")), "a folder");
  assert.equal(notAFile(await fs().stat("/dev/null")), "a character device");
  assert.equal(
    notAFile(await fs().stat(new URL(import.meta.url).pathname)),
    undefined,
  );
});
