/**
 * Fault injection through the filesystem seam: short writes, a full disk or
 * a file too large on the n-th write, an I/O error on flush, and a crash
 * between a temp file's write and its rename or link. Each must give a clear
 * error, fail the writer for good, leave no partial file under its final
 * name, and leave the session file as it was.
 *
 * @module
 */
import assert from "node:assert/strict";
import { override, withFs } from "../_fs_seam.ts";
import { basename, dirname, join } from "node:path";
import {
  BlobStore,
  forkSession,
  listSessions,
  Session,
  type SessionEntry,
} from "../../mod.ts";
import { type FileHandle, type Fs, realFs } from "../../src/_fs.ts";
import { tempDir } from "../_session_files.ts";

const T = Date.parse("2026-10-01T09:00:00.000Z");
/** Appears in every entry a failing call tries to write: no error may quote it. */
const SECRET = "SECRET-7f3a-do-not-leak";
const usage = { input: 10, output: 5, totalTokens: 15 };

function clock(): () => Date {
  let n = 0;
  return () => new Date(T + 1000 * n++);
}

function oserror(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}
const ENOSPC = () => oserror("No space left on device (os error 28)", "ENOSPC");
const EFBIG = () => oserror("File too large (os error 27)", "EFBIG");
const EIO = () => oserror("Input/output error (os error 5)", "EIO");

/** What a faulty filesystem does to the files it matches. */
interface FaultPlan {
  /** Which paths the plan applies to. */
  match: (path: string) => boolean;
  /** At most this many bytes per write call. */
  chunk?: number;
  /** The n-th write call (1-based, over every matched handle) fails... */
  failWrite?: number;
  /** ...with this error... */
  writeError?: () => Error;
  /** ...and every later write fails too (a disk that stays full). */
  persistent?: boolean;
  /** The n-th syncData call fails. */
  failSync?: number;
  syncError?: () => Error;
}

/** The real filesystem, with `plan` applied to the handles it matches. */
function faultyFs(
  plan: FaultPlan,
): { fs: Fs; writes: () => number; thrown: Error[] } {
  let writes = 0;
  let syncs = 0;
  const thrown: Error[] = [];
  const write = async (
    file: FileHandle,
    p: Uint8Array,
    at?: number,
  ): Promise<number> => {
    writes++;
    const failing = plan.failWrite !== undefined &&
      (plan.persistent ? writes >= plan.failWrite : writes === plan.failWrite);
    if (failing) {
      const err = plan.writeError!();
      thrown.push(err);
      throw err;
    }
    return await file.write(p.subarray(0, plan.chunk ?? p.length), at);
  };
  const syncData = async (file: FileHandle): Promise<void> => {
    if (++syncs === plan.failSync) {
      const err = plan.syncError!();
      thrown.push(err);
      throw err;
    }
    await file.syncData();
  };
  const wrap = (file: FileHandle): FileHandle =>
    override(file, {
      write: (p, at) => write(file, p, at),
      syncData: () => syncData(file),
    });
  const fs: Fs = {
    ...realFs,
    open: async (path, options) => {
      const file = await realFs.open(path, options);
      return plan.match(path) ? wrap(file) : file;
    },
  };
  return { fs, writes: () => writes, thrown };
}

/** A session of a few entries on disk; returns its path. */
async function writeSession(
  dataDir: string,
  name = "s.jsonl",
): Promise<string> {
  const s = await Session.create({
    cwd: "/home/dev/app",
    dataDir,
    path: join(dataDir, "sessions", "--home-dev-app--", name),
    now: clock(),
  });
  await s.appendModelChange("anthropic/claude-sonnet-4-5");
  await s.appendMessage({ role: "user", content: "Hello ✓" });
  await s.appendMessage({
    role: "assistant",
    content: [{ type: "text", text: "Hi. 你好" }],
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    api: "anthropic-messages",
    usage,
    stopReason: "stop",
  });
  await s.ensureOnDisk();
  await s.close();
  return s.path!;
}

/** A message whose line is long enough for several short writes, holding the secret. */
function secretMessage(n = 0): { role: "user"; content: string } {
  return { role: "user", content: `${SECRET} #${n} ${"é".repeat(40)}` };
}

/** What a session file holds: its bytes and the context both loaders rebuild. */
async function snapshot(
  path: string,
  dataDir: string,
): Promise<{ bytes: Uint8Array; context: unknown[] }> {
  const contexts: unknown[] = [];
  for (const window of [true, false]) {
    await using s = await Session.open(path, { dataDir, window });
    contexts.push(s.buildContext());
  }
  assert.deepEqual(contexts[0], contexts[1]);
  return { bytes: await Deno.readFile(path), context: contexts };
}

/**
 * Names in `dir` (sorted); [] when it is absent. The lock's OS gate
 * (`.<name>.lock.os`) is left out: it is never removed, by design (removing
 * a flock file lets two writers lock two different inodes).
 */
async function names(dir: string): Promise<string[]> {
  const out: string[] = [];
  try {
    for await (const e of Deno.readDir(dir)) {
      if (!e.name.endsWith(".lock.os")) out.push(e.name);
    }
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  return out.sort();
}

/** Every message of `err` and its causes, nested ones included. */
function messages(err: unknown): string[] {
  const out: string[] = [];
  const seen = new Set<unknown>();
  const walk = (e: unknown): void => {
    if (!(e instanceof Error) || seen.has(e)) return;
    seen.add(e);
    out.push(e.message);
    walk(e.cause);
    if (e instanceof AggregateError) e.errors.forEach(walk);
  };
  walk(err);
  return out;
}

/** The error quotes no session content. */
function assertNoContent(err: unknown): void {
  for (const m of messages(err)) {
    assert.ok(!m.includes(SECRET), `an error quotes session content: ${m}`);
  }
}

/** Whether `err` is, or is caused by, `first`. */
function isOrCauses(err: unknown, first: Error): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e === first) return true;
    if (e instanceof AggregateError && e.errors.includes(first)) return true;
  }
  return false;
}

/** The error names the action (`Cannot <verb>`) and the file, as STYLE.md asks. */
function assertNamesActionAndFile(
  err: unknown,
  action: RegExp,
  file: string,
): void {
  assert.ok(err instanceof Error);
  assert.match(err.message, action, `no action in: ${err.message}`);
  assert.ok(
    err.message.includes(file),
    `no file ${file} in: ${err.message}`,
  );
}

// ------------------------------------------------------------ short writes

Deno.test("Session writes every line whole through 1-byte writes: create, append, batch, rename, blob, fork", async () => {
  await using dir = await tempDir();
  const dataDir = dir.path;
  const path = join(dataDir, "sessions", "--x--", "short.jsonl");
  const { fs, writes } = faultyFs({ match: () => true, chunk: 1 });
  const png = new Uint8Array(1500).map((_, i) => (i * 7) & 0xff);
  let expected: unknown;
  let fork = "";
  await withFs(fs, async () => {
    const s = await Session.create({ cwd: "/x", dataDir, path, now: clock() });
    await s.appendModelChange("anthropic/claude-sonnet-4-5");
    await s.appendMessage({ role: "user", content: "première ✓" });
    await s.ensureOnDisk();
    await s.appendBatch([
      { type: "message", message: { role: "user", content: "二" } },
      {
        type: "message",
        message: {
          role: "user",
          content: [{
            type: "image",
            mimeType: "image/png",
            data: png.toBase64(),
          }],
        },
      },
    ]);
    await s.setTitle("Short writes — kurz");
    expected = s.buildContext();
    await s.close();
    fork = (await forkSession(path, join(dirname(path), "fork.jsonl"))).path;
  });
  assert.ok(writes() > (await Deno.readFile(path)).length, "1 byte per call");
  await using again = await Session.open(path, { dataDir });
  assert.deepEqual(again.issues, []);
  assert.equal(again.title, "Short writes — kurz");
  assert.deepEqual(again.buildContext(), expected);
  const blob = (again.entries.at(-2) as SessionEntry & {
    message: { content: { data: string }[] };
  }).message.content[0]!.data;
  assert.ok(blob.startsWith("blob:sha256:"));
  assert.ok(await new BlobStore(join(dataDir, "blobs")).verify(blob));
  await using forked = await Session.open(fork, { dataDir });
  assert.deepEqual(
    forked.buildContext().messages,
    again.buildContext().messages,
  );
  assert.deepEqual(
    (await names(dirname(path))).filter((n) => n.endsWith(".tmp")),
    [],
  );
});

// ------------------------------------------------- full disk, file too large

Deno.test("Session.appendMessage() on a full disk or a file too large, at the n-th write: the file is as before and the session fails for good", async (t) => {
  for (const [code, make] of [["ENOSPC", ENOSPC], ["EFBIG", EFBIG]] as const) {
    for (const n of [1, 2, 3]) {
      await t.step(`${code} on write ${n}`, async () => {
        await using dir = await tempDir();
        const dataDir = dir.path;
        const path = await writeSession(dataDir);
        const before = await snapshot(path, dataDir);
        const { fs, thrown } = faultyFs({
          match: (p) => p === path,
          chunk: 16, // the line goes out in pieces: write n lands mid-line
          failWrite: n,
          writeError: make,
          persistent: true,
        });
        await withFs(fs, async () => {
          await using s = await Session.open(path, { dataDir, now: clock() });
          const entries = s.entries.length;
          const leaf = s.leafId;
          let first: unknown;
          await assert.rejects(s.appendMessage(secretMessage(1)), (err) => {
            first = err;
            return true;
          });
          assert.ok(isOrCauses(first, thrown[0]!), "the injected error");
          assert.equal((first as { code?: string }).code, code, "code kept");
          assertNoContent(first);
          assert.equal(s.entries.length, entries, "nothing added in memory");
          assert.equal(s.leafId, leaf);
          assert.deepEqual(await Deno.readFile(path), before.bytes);
          for (
            const next of [
              () => s.appendMessage(secretMessage(2)),
              () => s.setTitle(`${SECRET} title`),
              () => s.appendCustom("x", { SECRET }),
            ]
          ) {
            await assert.rejects(next(), (err) => {
              assert.ok(err instanceof Error);
              assert.ok(isOrCauses(err, first as Error), "the first error");
              assertNamesActionAndFile(err, /^Cannot \w+/, path);
              assert.match(err.message, /failed earlier/);
              assertNoContent(err);
              return true;
            });
          }
          assert.equal(s.entries.length, entries);
        });
        assert.equal(thrown.length, 1, "no write was tried after the failure");
        assert.deepEqual(
          await names(dirname(path)),
          [basename(path)],
          "no lock file left",
        );
        const after = await snapshot(path, dataDir);
        assert.deepEqual(after.bytes, before.bytes);
        assert.deepEqual(after.context, before.context);
        // A new writer (a restart) appends after the intact bytes.
        {
          await using s = await Session.open(path, { dataDir });
          await s.appendMessage({ role: "user", content: "after the fault" });
        }
        const bytes = await Deno.readFile(path);
        assert.deepEqual(bytes.subarray(0, before.bytes.length), before.bytes);
      });
    }
  }
});

Deno.test("Session.ensureOnDisk() on a full disk at the n-th write leaves no file, keeps the session in memory, and can be retried", async (t) => {
  for (const n of [1, 2, 3]) {
    await t.step(`ENOSPC on write ${n}`, async () => {
      await using dir = await tempDir();
      const dataDir = dir.path;
      const path = join(dataDir, "sessions", "--x--", "new.jsonl");
      const s = await Session.create({
        cwd: "/x",
        dataDir,
        path,
        now: clock(),
      });
      await s.appendMessage(secretMessage(0));
      const expected = s.buildContext();
      const { fs, thrown } = faultyFs({
        match: (p) => p === path,
        chunk: 64,
        failWrite: n,
        writeError: ENOSPC,
        persistent: true,
      });
      await withFs(fs, async () => {
        await assert.rejects(s.ensureOnDisk(), (err) => {
          assert.ok(isOrCauses(err, thrown[0]!));
          assertNoContent(err);
          return true;
        });
      });
      assert.equal(s.onDisk, false);
      assert.deepEqual(await names(dirname(path)), [], "no partial file");
      await s.ensureOnDisk();
      await s.close();
      await using again = await Session.open(path, { dataDir });
      assert.deepEqual(again.buildContext(), expected);
    });
  }
});

Deno.test("Session.setTitle() with the disk failing during the slot rewrite: nothing of the rename stays, on disk or in memory, and the session fails for good", async (t) => {
  for (const [code, make] of [["ENOSPC", ENOSPC], ["EFBIG", EFBIG]] as const) {
    for (const n of [1, 2, 3]) {
      await t.step(`${code} on slot write ${n}`, async () => {
        await using dir = await tempDir();
        const dataDir = dir.path;
        const path = await writeSession(dataDir);
        const before = await Deno.readFile(path);
        // The title_change line is appended through the append handle;
        // the slot is rewritten through a second, positional handle.
        let handles = 0;
        let slotWrites = 0;
        const err0 = make();
        const fs: Fs = {
          ...realFs,
          open: async (p, options) => {
            const file = await realFs.open(p, options);
            // Reads go through the seam too: only the positional write
            // handle of the slot rewrite fails.
            if (
              p !== path || options.append || !options.write || ++handles > 1
            ) return file;
            return override(file, {
              write: (b, at) => {
                if (++slotWrites === n) return Promise.reject(err0);
                return file.write(b.subarray(0, 100), at);
              },
            });
          },
        };
        await withFs(fs, async () => {
          await using s = await Session.open(path, { dataDir });
          const entries = s.entries.length;
          const leaf = s.leafId;
          await assert.rejects(s.setTitle(`${SECRET} renamed`), (err) => {
            assert.ok(isOrCauses(err, err0));
            assertNoContent(err);
            return true;
          });
          // All or nothing: the entry is taken back out of memory too.
          assert.equal(s.entries.length, entries);
          assert.equal(s.leafId, leaf);
          assert.equal(s.title, undefined);
          await assert.rejects(s.appendMessage(secretMessage()), (err) => {
            assert.ok(isOrCauses(err, err0), "sticky");
            assertNamesActionAndFile(err, /^Cannot append to/, path);
            assertNoContent(err);
            return true;
          });
        });
        // omp's order: the title_change entry went first, then the slot
        // failed. The old slot is put back and the entry cut off: the file
        // is byte for byte as before, so a retry adds one entry, not two.
        assert.deepEqual(await Deno.readFile(path), before);
        await using again = await Session.open(path, { dataDir });
        assert.equal(again.title, undefined);
        assert.deepEqual(again.issues, []);
      });
    }
  }
});

// ----------------------------------------------------------- EIO on flush

Deno.test("Session with sync: an I/O error on syncData rolls the append back and fails the session for good", async (t) => {
  await t.step("on an append", async () => {
    await using dir = await tempDir();
    const dataDir = dir.path;
    const path = await writeSession(dataDir);
    const before = await snapshot(path, dataDir);
    const { fs, thrown } = faultyFs({
      match: (p) => p === path,
      failSync: 1,
      syncError: EIO,
    });
    await withFs(fs, async () => {
      await using s = await Session.open(path, { dataDir, sync: true });
      await assert.rejects(s.appendMessage(secretMessage()), (err) => {
        assert.ok(isOrCauses(err, thrown[0]!));
        assert.equal((err as { code?: string }).code, "EIO");
        assertNoContent(err);
        return true;
      });
      await assert.rejects(s.appendMessage(secretMessage(2)), (err) => {
        assert.ok(isOrCauses(err, thrown[0]!), "sticky");
        assertNamesActionAndFile(err, /^Cannot append to/, path);
        assertNoContent(err);
        return true;
      });
    });
    const after = await snapshot(path, dataDir);
    assert.deepEqual(after.bytes, before.bytes);
    assert.deepEqual(after.context, before.context);
  });
  await t.step("on the slot rewrite of a rename", async () => {
    await using dir = await tempDir();
    const dataDir = dir.path;
    const path = await writeSession(dataDir);
    const before = await Deno.readFile(path);
    const { fs, thrown } = faultyFs({
      match: (p) => p === path,
      failSync: 2, // 1: the title_change append; 2: the slot
      syncError: EIO,
    });
    await withFs(fs, async () => {
      await using s = await Session.open(path, { dataDir, sync: true });
      await assert.rejects(s.setTitle("Renamed"), (err) => {
        assert.ok(isOrCauses(err, thrown[0]!));
        return true;
      });
      await assert.rejects(
        s.appendMessage(secretMessage()),
        (err) => isOrCauses(err, thrown[0]!),
      );
    });
    assert.deepEqual(
      await Deno.readFile(path),
      before,
      "slot and entry undone",
    );
    await using again = await Session.open(path, { dataDir });
    assert.equal(again.title, undefined, "the old slot is back");
  });
  await t.step("on create: no file is left", async () => {
    await using dir = await tempDir();
    const dataDir = dir.path;
    const path = join(dataDir, "sessions", "--x--", "synced.jsonl");
    const s = await Session.create({
      cwd: "/x",
      dataDir,
      path,
      sync: true,
      now: clock(),
    });
    await s.appendMessage(secretMessage());
    const { fs, thrown } = faultyFs({
      match: (p) => p === path,
      failSync: 1,
      syncError: EIO,
    });
    await withFs(fs, async () => {
      await assert.rejects(s.ensureOnDisk(), (err) => {
        assert.ok(isOrCauses(err, thrown[0]!));
        assertNoContent(err);
        return true;
      });
    });
    assert.deepEqual(await names(dirname(path)), []);
    await s.close();
  });
});

// ------------------------------------- a crash between write and rename/link

Deno.test("BlobStore.put() through an append: a crash before the rename leaves no blob, no temp file, and no line", async (t) => {
  const png = new Uint8Array(4096).map((_, i) => (i * 13) & 0xff);
  const image = { type: "image", mimeType: "image/png", data: png.toBase64() };
  await t.step("rename throws: the temp file is removed", async () => {
    await using dir = await tempDir();
    const dataDir = dir.path;
    const path = await writeSession(dataDir);
    const before = await snapshot(path, dataDir);
    const blobs = join(dataDir, "blobs");
    const crash = EIO();
    await using s = await Session.open(path, { dataDir });
    await withFs(
      { ...realFs, rename: () => Promise.reject(crash) },
      () =>
        assert.rejects(
          s.appendMessage({ role: "user", content: [image] }),
          (err) => isOrCauses(err, crash),
        ),
    );
    assert.deepEqual(await names(blobs), [], "no blob, no temp file");
    assert.deepEqual((await snapshot(path, dataDir)).bytes, before.bytes);
    // Nothing reached the session file, so the writer is not failed: the
    // same append goes through once the filesystem works.
    const e = await s.appendMessage({ role: "user", content: [image] });
    const ref = (e.message as { content: { data: string }[] }).content[0]!.data;
    assert.ok(await new BlobStore(blobs).verify(ref));
  });
  for (const [code, make] of [["ENOSPC", ENOSPC], ["EFBIG", EFBIG]] as const) {
    for (const n of [1, 2, 3]) {
      await t.step(`${code} on blob write ${n}`, async () => {
        await using dir = await tempDir();
        const dataDir = dir.path;
        const path = await writeSession(dataDir);
        const before = await Deno.readFile(path);
        const blobs = join(dataDir, "blobs");
        const { fs, thrown } = faultyFs({
          match: (p) => p.startsWith(blobs),
          chunk: 1024,
          failWrite: n,
          writeError: make,
          persistent: true,
        });
        await using s = await Session.open(path, { dataDir });
        await withFs(fs, () =>
          assert.rejects(
            s.appendMessage({ role: "user", content: [image] }),
            (err) => isOrCauses(err, thrown[0]!),
          ));
        assert.deepEqual(await names(blobs), []);
        assert.deepEqual(await Deno.readFile(path), before);
      });
    }
  }
  await t.step(
    "a real crash (the temp file cannot be removed either): the blob is still absent, and the next put succeeds",
    async () => {
      await using dir = await tempDir();
      const blobs = join(dir.path, "blobs");
      const store = new BlobStore(blobs);
      const crash = EIO();
      const stuck = EIO();
      await withFs({
        ...realFs,
        rename: () => Promise.reject(crash),
        remove: () => Promise.reject(stuck),
      }, () =>
        assert.rejects(store.put(png), (err) => {
          assert.ok(err instanceof AggregateError);
          assert.deepEqual(err.errors, [crash, stuck]);
          assertNamesActionAndFile(err, /^Cannot store blob/, blobs);
          return true;
        }));
      const left = await names(blobs);
      assert.equal(left.length, 1);
      assert.match(left[0]!, /^\.[0-9a-f]{64}\.[0-9a-f]{12}\.tmp$/);
      const ref = `blob:sha256:${left[0]!.slice(1, 65)}`;
      assert.equal(await store.has(ref), false, "not visible under its name");
      assert.equal(await store.get(ref), undefined);
      assert.equal(await store.put(png), ref);
      assert.ok(await store.verify(ref));
    },
  );
});

Deno.test("forkSession(): a crash between the temp write and the link leaves no fork and no temp file", async (t) => {
  await t.step("link and rename throw: the temp file is removed", async () => {
    await using dir = await tempDir();
    const dataDir = dir.path;
    const src = await writeSession(dataDir);
    const before = await Deno.readFile(src);
    const dst = join(dirname(src), "fork.jsonl");
    const crash = EIO();
    await withFs({
      ...realFs,
      link: () => Promise.reject(crash),
      rename: () => Promise.reject(crash),
    }, () =>
      assert.rejects(forkSession(src, dst), (err) => {
        assert.ok(isOrCauses(err, crash));
        assertNoContent(err);
        return true;
      }));
    assert.deepEqual(await names(dirname(src)), [basename(src)]);
    assert.deepEqual(await Deno.readFile(src), before);
    const fork = await forkSession(src, dst);
    await using s = await Session.open(fork.path, { dataDir });
    assert.equal(s.header.parentSession, (await Session.open(src)).header.id);
  });
  for (const [code, make] of [["ENOSPC", ENOSPC], ["EFBIG", EFBIG]] as const) {
    for (const n of [1, 2, 3]) {
      await t.step(`${code} on fork write ${n}`, async () => {
        await using dir = await tempDir();
        const dataDir = dir.path;
        const src = await writeSession(dataDir);
        const dst = join(dirname(src), "fork.jsonl");
        const { fs, thrown } = faultyFs({
          match: (p) => basename(p).startsWith(".fork.jsonl."),
          chunk: 100,
          failWrite: n,
          writeError: make,
          persistent: true,
        });
        await withFs(
          fs,
          () =>
            assert.rejects(forkSession(src, dst), (err) => {
              assert.ok(isOrCauses(err, thrown[0]!));
              return true;
            }),
        );
        assert.deepEqual(await names(dirname(src)), [basename(src)]);
      });
    }
  }
  await t.step(
    "a real crash (the temp file stays): no fork is listed, and the fork can be made again",
    async () => {
      await using dir = await tempDir();
      const dataDir = dir.path;
      const src = await writeSession(dataDir);
      const dst = join(dirname(src), "fork.jsonl");
      const crash = EIO();
      await withFs({
        ...realFs,
        link: () => Promise.reject(crash),
        rename: () => Promise.reject(crash),
        remove: () => Promise.reject(EIO()),
      }, () =>
        assert.rejects(forkSession(src, dst), (err) => {
          assert.ok(err instanceof AggregateError);
          assertNamesActionAndFile(
            err,
            /^Cannot fork .*: the write failed and the temp file .* could not be removed$/,
            dirname(dst),
          );
          return true;
        }));
      const left = (await names(dirname(src))).filter((n) =>
        n !== basename(src)
      );
      assert.equal(left.length, 1);
      assert.match(left[0]!, /^\.fork\.jsonl\.[0-9a-f]{12}\.tmp$/);
      const listed = await listSessions(dataDir);
      assert.deepEqual(
        listed.map((s) => s.path),
        [src],
        "the temp file is not a session",
      );
      const fork = await forkSession(src, dst);
      assert.equal(fork.path, dst);
    },
  );
});

// ------------------------------- what STYLE.md asks of the first error

/*
 * STYLE.md: "Messages name the action, a colon, then the state". The calls
 * below rethrow the filesystem's error as it came ("No space left on device
 * (os error 28)"), which names neither the action nor the file; only the
 * *next* call, refused by the failed writer, does. Ignored until fixed (see
 * the report): the assertions are what the fix must satisfy.
 */
Deno.test({
  name:
    "Session.appendMessage(): the first write error names the action and the file (BUG: raw OS error)",

  fn: async () => {
    await using dir = await tempDir();
    const dataDir = dir.path;
    const path = await writeSession(dataDir);
    const { fs } = faultyFs({
      match: (p) => p === path,
      failWrite: 1,
      writeError: ENOSPC,
    });
    await withFs(fs, async () => {
      await using s = await Session.open(path, { dataDir });
      await assert.rejects(s.appendMessage(secretMessage()), (err) => {
        assertNamesActionAndFile(err, /^Cannot append to/, path);
        assert.equal((err as { code?: string }).code, "ENOSPC");
        assertNoContent(err);
        return true;
      });
    });
  },
});

Deno.test({
  name:
    "BlobStore.put() and forkSession(): a failed rename names the action and the file (BUG: raw OS error)",

  fn: async () => {
    await using dir = await tempDir();
    const dataDir = dir.path;
    const src = await writeSession(dataDir);
    const fs = {
      ...realFs,
      rename: () => Promise.reject(EIO()),
      link: () => Promise.reject(EIO()),
    };
    await withFs(fs, async () => {
      await assert.rejects(
        new BlobStore(join(dataDir, "blobs")).put(new Uint8Array([1])),
        (err) => {
          assertNamesActionAndFile(
            err,
            /^Cannot store blob/,
            join(dataDir, "blobs"),
          );
          return true;
        },
      );
      const dst = join(dirname(src), "fork.jsonl");
      await assert.rejects(forkSession(src, dst), (err) => {
        assertNamesActionAndFile(err, /^Cannot fork/, dst);
        return true;
      });
    });
  },
});

/*
 * `sync: true` on a Session reaches its writer but not the blob store it
 * makes for images (src/session.ts, #prepare: `new BlobStore(join(dataDir,
 * "blobs"))` without `{ sync }`). The line naming a blob is flushed; the blob
 * and its folder entry are not, so a power cut can keep the line and lose
 * the image. Ignored until fixed (see the report).
 */
Deno.test({
  name:
    "Session with sync flushes the blob an append stores before the line that names it (BUG)",

  fn: async () => {
    await using dir = await tempDir();
    const dataDir = dir.path;
    const path = await writeSession(dataDir);
    const blobs = join(dataDir, "blobs");
    const flushed: string[] = [];
    const fs: Fs = {
      ...realFs,
      open: async (p, options) => {
        const file = await realFs.open(p, options);
        return override(file, {
          syncData: async () => {
            flushed.push(p);
            await file.syncData();
          },
        });
      },
    };
    await withFs(fs, async () => {
      await using s = await Session.open(path, { dataDir, sync: true });
      await s.appendMessage({
        role: "user",
        content: [{
          type: "image",
          mimeType: "image/png",
          data: new Uint8Array(2048).fill(3).toBase64(),
        }],
      });
    });
    assert.ok(
      flushed.some((p) => p.startsWith(join(blobs, "."))),
      `the blob was flushed (flushed: ${flushed.join(", ")})`,
    );
    assert.ok(flushed.includes(blobs), "and its folder");
  },
});
