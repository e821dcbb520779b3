/**
 * `SessionWriter.retitle()`: a rename whole or not at all, in place for a
 * 256-byte slot, else one atomic rewrite of the file (`_slot_rewrite.ts`),
 * decided from the bytes on disk.
 *
 * @module
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { withFs } from "../_fs_seam.ts";
import {
  marshalTitleSlot,
  TITLE_SLOT_BYTES,
} from "../../src/format/title_slot.ts";
import { type Fs, realFs } from "../../src/_fs.ts";
import { SessionWriter } from "../../src/write/_writer.ts";
import {
  AT,
  body,
  concat,
  encoder,
  HEADER,
  IS_WINDOWS,
  MESSAGE,
  mode,
  names,
  override,
  SLOT,
  withDir,
  wrapping,
} from "./_writer_files.ts";

const RENAMED = marshalTitleSlot({
  title: "Renamed ✓",
  source: "manual",
  updatedAt: AT,
});
const ENTRY = '{"type":"title_change","title":"Renamed ✓"}';
const REST = encoder.encode(`${HEADER}\n${MESSAGE}\n`);
const entryLine = () => encoder.encode(`${ENTRY}\n`);
const BOM = new Uint8Array([0xef, 0xbb, 0xbf]);
/** A slot-less file whose header line is exactly as wide as a slot. */
const WIDE_HEADER_FILE = (() => {
  const pad = "x".repeat(248 - HEADER.length);
  const header = encoder.encode(`${HEADER.slice(0, -1)},"x":"${pad}"}\n`);
  assert.equal(header.length, TITLE_SLOT_BYTES);
  return concat(header, encoder.encode(`${MESSAGE}\n`));
})();

Deno.test("SessionWriter.retitle() in place: the entry is appended, then bytes 0..255 change and nothing else", async (t) => {
  await withDir(async (dir) => {
    const path = join(dir, "s.jsonl");
    await using writer = await SessionWriter.create(path, body());
    await writer.append(['{"n":1}']);
    const before = await Deno.readFile(path);

    await t.step(
      "the slot and the entry, the rest byte-identical",
      async () => {
        await writer.retitle(RENAMED, [ENTRY]);
        const after = await Deno.readFile(path);
        assert.deepEqual(after.subarray(0, TITLE_SLOT_BYTES), RENAMED);
        assert.deepEqual(
          after.subarray(TITLE_SLOT_BYTES),
          concat(before.subarray(TITLE_SLOT_BYTES), entryLine()),
        );
        await writer.append(['{"n":2}']);
        assert.ok(
          (await Deno.readTextFile(path)).endsWith(`${ENTRY}\n{"n":2}\n`),
        );
      },
    );

    await t.step(
      "a slot of the wrong size or shape is a RangeError",
      async () => {
        const now = await Deno.readFile(path);
        await assert.rejects(
          writer.retitle(RENAMED.subarray(1), []),
          RangeError,
        );
        const early = RENAMED.slice();
        early[10] = 10;
        await assert.rejects(writer.retitle(early, [ENTRY]), RangeError);
        const unended = RENAMED.slice();
        unended[TITLE_SLOT_BYTES - 1] = 32;
        await assert.rejects(writer.retitle(unended, [ENTRY]), RangeError);
        assert.deepEqual(await Deno.readFile(path), now);
      },
    );
  });
});

Deno.test("SessionWriter.retitle() in place: a failed slot write puts the old slot back, cuts the entry off, and fails the writer", async () => {
  await withDir(async (dir) => {
    const path = join(dir, "s.jsonl");
    // A torn tail: the entry goes after a "\n", which is cut off too.
    const torn = concat(body(), encoder.encode('{"type":"mess'));
    await Deno.writeFile(path, torn);
    const broken = new Error("Input/output error (os error 5)");
    let writes = 0;
    const fs = wrapping(path, (file) =>
      override(file, {
        write: async (p, at) => {
          if (++writes === 3) throw broken; // 1: the entry; 2, 3: the slot
          return await file.write(p.subarray(0, 100), at);
        },
      }));
    await withFs(fs, async () => {
      await using writer = await SessionWriter.open(path);
      await assert.rejects(writer.retitle(RENAMED, [ENTRY]), (err) => {
        assert.equal((err as Error).cause, broken);
        return true;
      });
      assert.equal(writer.error!.cause, broken);
      assert.equal(writer.size, torn.length);
    });
    assert.deepEqual(await Deno.readFile(path), torn);
  });
});

Deno.test("SessionWriter.retitle() rewrites the file whole, with the slot and the entry, when line 1 is not a 256-byte slot", async (t) => {
  const cases: [string, Uint8Array, Uint8Array][] = [
    ["a slot-less file keeps every byte after the slot", REST, REST],
    [
      "a short malformed slot is replaced",
      concat(encoder.encode('{"type":"title","v":1,"title":"x"}\n'), REST),
      REST,
    ],
    [
      "a CRLF slot (257 bytes) is replaced",
      concat(SLOT.subarray(0, 255), encoder.encode("\r\n"), REST),
      REST,
    ],
    [
      "a byte order mark and the slot after it are dropped",
      concat(BOM, SLOT, REST),
      REST,
    ],
    [
      "a byte order mark before a header is dropped, the header kept",
      concat(BOM, REST),
      REST,
    ],
    [
      "a line 1 that is neither slot nor header (what a reader skips) goes",
      concat(encoder.encode("#!garbage\n"), REST),
      REST,
    ],
    [
      "a header exactly 256 bytes long is kept, not overwritten",
      WIDE_HEADER_FILE,
      WIDE_HEADER_FILE,
    ],
    [
      "a torn last line is closed before the entry",
      concat(REST, encoder.encode('{"type":"mes')),
      concat(REST, encoder.encode('{"type":"mes\n')),
    ],
  ];
  await withDir(async (dir) => {
    for (const [name, before, kept] of cases) {
      await t.step(name, async () => {
        const path = join(dir, "s.jsonl");
        await Deno.writeFile(path, before);
        await using writer = await SessionWriter.open(path);
        await writer.retitle(RENAMED, [ENTRY]);
        const expected = concat(RENAMED, kept, entryLine());
        assert.deepEqual(await Deno.readFile(path), expected);
        if (!IS_WINDOWS) assert.equal(await mode(path), 0o600);
        // The writer follows the new file: the next append lands in it.
        await writer.append(['{"n":1}']);
        assert.deepEqual(
          await Deno.readFile(path),
          concat(expected, encoder.encode('{"n":1}\n')),
        );
        assert.equal(writer.size, expected.length + 8);
        await Deno.remove(path);
      });
    }
    assert.deepEqual(await names(dir), [".s.jsonl.lock.os"]);
  });
});

Deno.test("SessionWriter.retitle() copies a file of several copy buffers whole", async () => {
  await withDir(async (dir) => {
    const path = join(dir, "big.jsonl");
    const line = `{"pad":"${"x".repeat(1000)}"}\n`;
    const big = concat(REST, encoder.encode(line.repeat(3_000)));
    await Deno.writeFile(path, big);
    await using writer = await SessionWriter.open(path);
    await writer.retitle(RENAMED, [ENTRY]);
    assert.deepEqual(
      await Deno.readFile(path),
      concat(RENAMED, big, entryLine()),
    );
  });
});

Deno.test("SessionWriter.retitle() leaves the file untouched, and the writer usable, when the whole rewrite cannot be done", async (t) => {
  await withDir(async (dir) => {
    await t.step("neither line 1 nor line 2 is a header", async () => {
      const path = join(dir, "headless.jsonl");
      const bytes = encoder.encode(`#!x\n${MESSAGE}\n`);
      await Deno.writeFile(path, bytes);
      await using writer = await SessionWriter.open(path);
      await assert.rejects(
        writer.retitle(RENAMED, [ENTRY]),
        /^Error: Cannot rename ".*headless\.jsonl": neither line 1 nor line 2 is a header$/,
      );
      assert.equal(writer.error, undefined);
      assert.deepEqual(await Deno.readFile(path), bytes);
    });

    await t.step("the disk is full while writing the temp file", async () => {
      const path = join(dir, "full.jsonl");
      await Deno.writeFile(path, REST);
      const full = Object.assign(
        new Error("No space left on device (os error 28)"),
        { code: "ENOSPC" },
      );
      const fs: Fs = {
        ...realFs,
        open: async (p, options) => {
          const file = await realFs.open(p, options);
          if (!p.endsWith(".tmp")) return file;
          return override(file, { write: () => Promise.reject(full) });
        },
      };
      await using writer = await SessionWriter.open(path);
      await withFs(fs, async () => {
        await assert.rejects(writer.retitle(RENAMED, [ENTRY]), (err) => {
          assert.ok(err instanceof Error);
          assert.equal(err.cause, full);
          assert.match(
            err.message,
            /^Cannot rename ".*full\.jsonl": No space left on device/,
          );
          return true;
        });
      });
      assert.equal(writer.error, undefined, "the file was never touched");
      assert.deepEqual(await Deno.readFile(path), REST);
      await writer.retitle(RENAMED, [ENTRY]);
      assert.deepEqual(
        await Deno.readFile(path),
        concat(RENAMED, REST, entryLine()),
      );
    });

    await t.step("the file grows during the copy", async () => {
      const path = join(dir, "grows.jsonl");
      await Deno.writeFile(path, REST);
      let reads = 0;
      const fs = wrapping(path, (file) =>
        override(file, {
          read: async (p, at) => {
            if (++reads === 4) {
              await Deno.writeTextFile(path, '{"late":1}\n', { append: true });
            }
            return await file.read(p, at);
          },
        }));
      await using writer = await SessionWriter.open(path);
      await withFs(fs, async () => {
        await assert.rejects(
          writer.retitle(RENAMED, [ENTRY]),
          /the file changed during the copy/,
        );
      });
      assert.deepEqual(
        await Deno.readFile(path),
        concat(REST, encoder.encode('{"late":1}\n')),
      );
    });

    const left = (await names(dir)).filter((n) => n.endsWith(".tmp"));
    assert.deepEqual(left, []);
  });
});
