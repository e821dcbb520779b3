import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { type Fs, realFs } from "../../src/_fs.ts";
import {
  emptyTrashed,
  listTrash,
  moveToTrash,
  restoreTrashed,
  trashRunName,
} from "../../src/store/_blob_trash.ts";
import { withFs } from "../_fs_seam.ts";
import { tempDir } from "../_session_files.ts";

const A = "a".repeat(64);
const HOUR = 3_600_000;

async function oldBlob(dir: string, name: string, ageMs = 2 * HOUR) {
  await Deno.writeTextFile(join(dir, name), "x");
  const then = new Date(Date.now() - ageMs);
  await Deno.utime(join(dir, name), then, then);
}

async function names(dir: string): Promise<string[]> {
  return (await Array.fromAsync(Deno.readDir(dir))).map((e) => e.name).sort();
}

Deno.test("moveToTrash() moves an old blob and its twin; listTrash() finds them by run", async () => {
  await using dir = await tempDir();
  await oldBlob(dir.path, A);
  await oldBlob(dir.path, `${A}.png`);
  const now = Date.now();
  const run = trashRunName(now);
  equal(await moveToTrash(dir.path, run, [A, `${A}.png`], now - HOUR), "moved");
  deepStrictEqual(await names(dir.path), [".trash"]);
  const trash = await listTrash(dir.path);
  equal(trash.blobs.length, 1);
  const [t] = trash.blobs;
  deepStrictEqual([t!.hex, t!.run, t!.files, t!.bytes], [A, run, [
    A,
    `${A}.png`,
  ], 2]);
  equal(t!.trashedAt, now);
  deepStrictEqual(trash.unknown, []);
});

Deno.test("moveToTrash() leaves a blob changed since gc listed the folder", async () => {
  await using dir = await tempDir();
  await oldBlob(dir.path, A, 0);
  equal(
    await moveToTrash(
      dir.path,
      trashRunName(Date.now()),
      [A],
      Date.now() - HOUR,
    ),
    "recent",
  );
  deepStrictEqual(await names(dir.path), [A]);
  equal(
    await moveToTrash(dir.path, trashRunName(Date.now()), ["b".repeat(64)], 0),
    "gone",
  );
});

Deno.test("moveToTrash() moves back a blob a put touched between its look and its rename", async () => {
  await using dir = await tempDir();
  await oldBlob(dir.path, A);
  const putFirst: Fs = {
    ...realFs,
    rename: async (from, to) => {
      if (from === join(dir.path, A)) {
        const now = new Date();
        await Deno.utime(from, now, now); // BlobStore.put's touch
      }
      return await realFs.rename(from, to);
    },
  };
  const how = await withFs(
    putFirst,
    () =>
      moveToTrash(dir.path, trashRunName(Date.now()), [A], Date.now() - HOUR),
  );
  equal(how, "recent");
  ok((await names(dir.path)).includes(A));
});

Deno.test("restoreTrashed() puts files back where their names are free; emptyTrashed() deletes; run folders go when empty", async () => {
  await using dir = await tempDir();
  const B = "b".repeat(64);
  await oldBlob(dir.path, A);
  await oldBlob(dir.path, B);
  const run = trashRunName(Date.now());
  await moveToTrash(dir.path, run, [A], Date.now());
  await moveToTrash(dir.path, run, [B], Date.now());
  await Deno.writeTextFile(join(dir.path, B), "x"); // stored again since
  const [a, b] = (await listTrash(dir.path)).blobs;
  deepStrictEqual(await restoreTrashed(dir.path, a!), [A]);
  deepStrictEqual(await restoreTrashed(dir.path, b!), []); // name taken: stays
  deepStrictEqual(await names(join(dir.path, ".trash", run)), [B]);
  await emptyTrashed(dir.path, b!);
  deepStrictEqual(await names(join(dir.path, ".trash")), []);
  deepStrictEqual(await names(dir.path), [".trash", A, B]);
});

Deno.test("listTrash(): nothing when absent; other names are listed as unknown and left alone", async () => {
  await using dir = await tempDir();
  deepStrictEqual(await listTrash(dir.path), { blobs: [], unknown: [] });
  const run = trashRunName(0);
  await Deno.mkdir(join(dir.path, ".trash", run), { recursive: true });
  await Deno.mkdir(join(dir.path, ".trash", "mine"));
  await Deno.writeTextFile(join(dir.path, ".trash", run, "notes.txt"), "");
  deepStrictEqual(await listTrash(dir.path), {
    blobs: [],
    unknown: [`${run}/notes.txt`, "mine"].sort(),
  });
});
