import assert from "node:assert/strict";
import fc from "fast-check";
import { FileSnapshot, takeSnapshot } from "../../src/fs/_snapshot.ts";
import { tempDir } from "../_session_files.ts";

type Op =
  | { read: number; sync: boolean }
  | { seek: number; whence: Deno.SeekMode; sync: boolean };

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ read: fc.nat(80), sync: fc.boolean() }),
  fc.record({
    seek: fc.integer({ min: -40, max: 120 }),
    whence: fc.constantFrom(
      Deno.SeekMode.Start,
      Deno.SeekMode.Current,
      Deno.SeekMode.End,
    ),
    sync: fc.boolean(),
  }),
);

/** What an operation gave: the count and bytes read, the new position, or that it threw. */
async function apply(
  file: Pick<
    Deno.FsFile,
    "read" | "readSync" | "seek" | "seekSync" | "statSync"
  >,
  o: Op,
): Promise<unknown> {
  try {
    if ("read" in o) {
      const p = new Uint8Array(o.read);
      const n = o.sync ? file.readSync(p) : await file.read(p);
      return { n, bytes: [...p.subarray(0, n ?? 0)] };
    }
    return o.sync
      ? file.seekSync(o.seek, o.whence)
      : await file.seek(o.seek, o.whence);
  } catch {
    return "threw";
  }
}

Deno.test("FileSnapshot.handle reads and seeks as the file does, synchronously or not", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/f`;
  await fc.assert(
    fc.asyncProperty(
      fc.uint8Array({ maxLength: 100 }),
      fc.array(op, { maxLength: 12 }),
      async (bytes, ops) => {
        await Deno.writeFile(path, bytes);
        using real = await Deno.open(path);
        const info = real.statSync();
        const snapshot = new FileSnapshot(path, bytes, info);
        using mine = snapshot.handle();
        assert.equal(mine.statSync!().size, bytes.length);
        assert.equal(
          (await mine.stat()).mtime?.getTime(),
          info.mtime?.getTime(),
        );
        for (const o of ops) {
          assert.deepEqual(
            await apply(mine as Deno.FsFile, o),
            await apply(real, o),
            JSON.stringify(o),
          );
        }
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("FileSnapshot.handle is read-only and its close does nothing", async () => {
  const snapshot = new FileSnapshot(
    "/x.jsonl",
    new TextEncoder().encode("abc\n"),
    { isFile: true, size: 99 } as Deno.FileInfo,
  );
  assert.equal(snapshot.info.size, 4); // the bytes' size, not the stat's
  const handle = snapshot.handle();
  await assert.rejects(
    async () => await handle.write(new Uint8Array(1)),
    Deno.errors.PermissionDenied,
  );
  assert.throws(() => handle.truncate(0), /read-only/);
  handle.close();
  handle.close();
  assert.equal(handle.readSync!(new Uint8Array(8)), 4); // still readable
  assert.equal(snapshot.handle().seekSync!(2, Deno.SeekMode.Start), 2); // its own position
});

Deno.test("takeSnapshot reads a small regular file whole; anything else is left to its readers", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/s.jsonl`;
  await Deno.writeTextFile(path, "0123456789");
  const info = await Deno.stat(path);
  const snapshot = takeSnapshot(path, info, 10);
  assert.equal(new TextDecoder().decode(snapshot?.bytes), "0123456789");
  assert.equal(snapshot?.info.ino, info.ino);
  assert.equal(takeSnapshot(path, info, 9), undefined); // larger than the limit
  // Grown past the limit since its stat: the open's own stat says so.
  await Deno.writeTextFile(path, "abc", { append: true });
  assert.equal(takeSnapshot(path, info, 12), undefined);
  assert.equal(takeSnapshot(path, await Deno.stat(path), 13)?.bytes.length, 13);
  // Never opened: a folder, or anything a stat says is not a regular file
  // (opening a FIFO would wait for a writer).
  assert.equal(
    takeSnapshot(dir.path, await Deno.stat(dir.path), 1e9),
    undefined,
  );
  if (Deno.build.os !== "windows") {
    const fifo = `${dir.path}/pipe.jsonl`;
    const made = await new Deno.Command("mkfifo", { args: [fifo] }).output()
      .catch(() => undefined);
    if (made?.success) {
      assert.equal(takeSnapshot(fifo, await Deno.stat(fifo), 1e9), undefined);
    }
  }
  // Gone since its stat: undefined, and the readers say why.
  await Deno.remove(path);
  assert.equal(takeSnapshot(path, info, 1e9), undefined);
});

Deno.test("takeSnapshot reads into the buffer given where the file fits, else into its own", async () => {
  await using dir = await tempDir();
  const path = `${dir.path}/s.jsonl`;
  await Deno.writeTextFile(path, "0123456789");
  const info = await Deno.stat(path);
  const into = new Uint8Array(16).fill(0x2a);
  const snapshot = takeSnapshot(path, info, 100, into);
  assert.equal(snapshot?.bytes.buffer, into.buffer, "the buffer given");
  assert.equal(new TextDecoder().decode(snapshot?.bytes), "0123456789");
  assert.equal(into[10], 0x2a, "nothing past the file");
  const small = new Uint8Array(4);
  const own = takeSnapshot(path, info, 100, small);
  assert.notEqual(own?.bytes.buffer, small.buffer, "too small: its own");
  assert.equal(new TextDecoder().decode(own?.bytes), "0123456789");
});
