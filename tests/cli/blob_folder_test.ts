import { deepStrictEqual, equal, rejects } from "node:assert/strict";
import { join } from "node:path";
import {
  listBlobFolder,
  twinCount,
  unreferenced,
} from "../../src/cli/_blob_folder.ts";
import { tempDir } from "../_session_files.ts";

const A = "a".repeat(64);
const B = "b".repeat(64);
const C = "c".repeat(64);

Deno.test("listBlobFolder() sorts a blobs folder by kind of name", async (t) => {
  await using dir = await tempDir();
  await Deno.writeTextFile(join(dir.path, B), "bb");
  await Deno.writeTextFile(join(dir.path, A), "a");
  await Deno.writeTextFile(join(dir.path, `${A}.png`), "a");
  await Deno.writeTextFile(join(dir.path, `${C}.jpg`), "ccc"); // lost its blob
  await Deno.writeTextFile(join(dir.path, `.${A}.x1.tmp`), "");
  await Deno.writeTextFile(join(dir.path, "README"), "");
  await Deno.mkdir(join(dir.path, "zz"));
  const listing = await listBlobFolder(dir.path, "verify");
  await t.step("by kind", () => {
    deepStrictEqual([...listing.blobs], [[A, 1], [B, 2]]);
    deepStrictEqual([...listing.twins], [[A, [`${A}.png`]], [C, [`${C}.jpg`]]]);
    equal(listing.temp, 1);
    deepStrictEqual(listing.unknown, ["README", "zz"]);
    equal(twinCount(listing), 2);
  });
  await t.step("unreferenced() keeps what is named", async () => {
    deepStrictEqual(await unreferenced(dir.path, listing, new Set([B])), [
      { hex: A, bytes: 1, files: [A, `${A}.png`] },
      { hex: C, bytes: 3, files: [`${C}.jpg`] },
    ]);
  });
});

Deno.test("listBlobFolder(): an absent folder holds nothing; a linked one is refused", async () => {
  await using dir = await tempDir();
  const absent = await listBlobFolder(join(dir.path, "nope"), "verify");
  equal(absent.blobs.size + absent.twins.size + absent.temp, 0);
  const link = join(dir.path, "blobs");
  await Deno.symlink(dir.path, link);
  await rejects(listBlobFolder(link, "collect"), {
    message: `Cannot collect the blobs in "${link}": it is a symbolic link`,
  });
});
