import assert from "node:assert/strict";
import { join } from "node:path";
import { realFs } from "../../src/_fs.ts";
import { writeAtomically } from "../../src/write/_atomic_file.ts";
import { writeAll } from "../../src/write/_files.ts";
import { withFs } from "../_fs_seam.ts";
import { tempDir } from "../_session_files.ts";

const enc = new TextEncoder();
const IS_WINDOWS = Deno.build.os === "windows";

async function names(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) out.push(e.name);
  return out.sort();
}

Deno.test("writeAtomically() writes the whole file or nothing", async (t) => {
  await using dir = await tempDir();
  const target = join(dir.path, "a.jsonl");
  const action = `Cannot write "${target}"`;
  await t.step("a new file, 0600, no temp file left", async () => {
    await writeAtomically(target, (out) => writeAll(out, enc.encode("one\n")), {
      action,
      sync: true,
    });
    assert.equal(await Deno.readTextFile(target), "one\n");
    if (!IS_WINDOWS) {
      assert.equal((await Deno.stat(target)).mode! & 0o777, 0o600);
    }
    assert.deepEqual(await names(dir.path), ["a.jsonl"]);
  });
  await t.step("replacing: the old content until the rename", async () => {
    await writeAtomically(target, async (out) => {
      await writeAll(out, enc.encode("two\n"));
      assert.equal(await Deno.readTextFile(target), "one\n");
    }, { action, sync: false });
    assert.equal(await Deno.readTextFile(target), "two\n");
  });
  await t.step(
    "a fill that throws leaves the old file and no temp file",
    async () => {
      const boom = new Error("boom");
      await assert.rejects(
        writeAtomically(target, async (out) => {
          await writeAll(out, enc.encode("half"));
          throw boom;
        }, { action, sync: false }),
        (err) => {
          assert.ok(err instanceof Error);
          assert.equal(err.message, `${action}: boom`);
          assert.equal(err.cause, boom);
          return true;
        },
      );
      assert.equal(await Deno.readTextFile(target), "two\n");
      assert.deepEqual(await names(dir.path), ["a.jsonl"]);
    },
  );
  await t.step("no-clobber never replaces what is there", async () => {
    await assert.rejects(
      writeAtomically(target, (out) => writeAll(out, enc.encode("three\n")), {
        action,
        sync: false,
        noClobber: true,
      }),
      (err) => {
        assert.ok(err instanceof Deno.errors.AlreadyExists);
        assert.match(
          err.message,
          /^Cannot write ".*": ".*a\.jsonl" already exists$/,
        );
        return true;
      },
    );
    assert.equal(await Deno.readTextFile(target), "two\n");
    assert.deepEqual(await names(dir.path), ["a.jsonl"]);
  });
  await t.step(
    "no-clobber without hard links: checked, then renamed",
    async () => {
      const other = join(dir.path, "b.jsonl");
      const noLinks = {
        ...realFs,
        link: () => Promise.reject(new Error("EPERM")),
      };
      await withFs(
        noLinks,
        () =>
          writeAtomically(other, (out) => writeAll(out, enc.encode("b\n")), {
            action,
            sync: false,
            noClobber: true,
          }),
      );
      assert.equal(await Deno.readTextFile(other), "b\n");
      assert.deepEqual(await names(dir.path), ["a.jsonl", "b.jsonl"]);
    },
  );
  await t.step(
    "a failed rename names the action and removes the temp file",
    async () => {
      const eio = Object.assign(new Error("Input/output error"), {
        code: "EIO",
      });
      const failing = { ...realFs, rename: () => Promise.reject(eio) };
      await withFs(failing, () =>
        assert.rejects(
          writeAtomically(target, (out) => writeAll(out, enc.encode("x")), {
            action,
            sync: false,
          }),
          (err) => {
            assert.ok(err instanceof Error);
            assert.equal(err.message, `${action}: Input/output error`);
            assert.equal((err as { code?: string }).code, "EIO");
            assert.equal(err.cause, eio);
            return true;
          },
        ));
      assert.deepEqual(await names(dir.path), ["a.jsonl", "b.jsonl"]);
    },
  );
});
