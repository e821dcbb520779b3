/**
 * The hostile corpus in one place: the files people really have (damaged
 * disks, FIFOs, huge lines, NUL tails, glued lines, byte order marks, stale
 * locks, legacy versions, huge blobs), each opened both ways (windowed and
 * whole) or written to, with the outcome pinned and no case allowed to hang. Big inputs
 * are sparse files or are generated, never committed; memory bounds are
 * checked in a child process.
 */
import { deepStrictEqual, equal, ok, rejects } from "node:assert/strict";
import {
  forkSession,
  type LoadIssueKind,
  Session,
  SessionSyntaxError,
} from "../../mod.ts";
import { HEADER, sessionBytes, tempDir, user } from "../_session_files.ts";
import { cliInProcess, CONTROL, writeHostileSession } from "../_cli.ts";

const enc = new TextEncoder();
const a = user("0000000a", null, "first");
const b = user("0000000b", "0000000a", "second");
const MB = 1 << 20;

const kinds = (s: Session): LoadIssueKind[] => s.issues.map((i) => i.kind);
const texts = (s: Session): string[] =>
  s.buildContext().messages.map((m) =>
    (m as { content: { text: string }[] }).content[0]!.text
  );

/** A file of `bytes`, then `extend` NUL bytes (a sparse hole: no disk used). */
async function fileOf(
  dir: string,
  bytes: Uint8Array,
  extend = 0,
): Promise<string> {
  const path = `${dir}/s.jsonl`;
  await Deno.writeFile(path, bytes);
  if (extend > 0) {
    using f = await Deno.open(path, { write: true });
    await f.truncate(bytes.length + extend);
  }
  return path;
}

/** Open windowed and whole; both must pass `check`. */
async function bothWays(
  path: string,
  check: (s: Session, how: string) => void,
): Promise<void> {
  for (const window of [true, false]) {
    await using s = await Session.open(path, { window });
    check(s, window ? "windowed" : "whole");
  }
}

/**
 * The resident memory a child process gains opening `path` (both ways), so a
 * bound can be checked without the test runner's own heap in the figure.
 */
async function rssGrowthMB(path: string): Promise<number> {
  const code = `
    import { Session } from ${
    JSON.stringify(new URL("../../mod.ts", import.meta.url).href)
  };
    const rss = () => Number(/VmHWM:\\s+(\\d+)/.exec(Deno.readTextFileSync("/proc/self/status"))[1]) / 1024;
    const before = rss();
    for (const window of [true, false]) {
      try { await using s = await Session.open(${
    JSON.stringify(path)
  }, { window }); s.buildContext(); }
      catch (err) { if (!(err instanceof Error && err.name === "SessionSyntaxError")) throw err; }
    }
    console.log(rss() - before);`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "eval",
      "--config",
      new URL("../../deno.json", import.meta.url).pathname,
      code,
    ],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  return Number(new TextDecoder().decode(out.stdout).trim());
}

const HAS_PROC = Deno.build.os === "linux";

Deno.test("Session.open() on a NUL-filled tail of 256 MB: the entries before it, in bounded memory", async () => {
  await using dir = await tempDir();
  const path = await fileOf(dir.path, sessionBytes([a, b]), 256 * MB);
  await bothWays(path, (s, how) => {
    deepStrictEqual(kinds(s), ["nul-fill"], how);
    deepStrictEqual(texts(s), ["first", "second"], how);
  });
  if (HAS_PROC) {
    const mb = await rssGrowthMB(path);
    ok(mb < 64, `peak RSS grew ${mb} MB`);
  }
});

Deno.test("Session.open() on a file of NUL bytes only: a clear SessionSyntaxError, in bounded memory", async () => {
  await using dir = await tempDir();
  const path = await fileOf(dir.path, new Uint8Array(0), 300 * MB);
  for (const window of [true, false]) {
    await rejects(Session.open(path, { window }), (err) => {
      ok(err instanceof SessionSyntaxError);
      equal(err.reason, "the header is missing");
      return true;
    });
  }
  if (HAS_PROC) {
    const mb = await rssGrowthMB(path);
    ok(mb < 64, `peak RSS grew ${mb} MB`);
  }
});

Deno.test("Session.open() skips a last line over maxLineBytes unread, and reports it", async () => {
  await using dir = await tempDir();
  const huge = enc.encode(
    `${JSON.stringify(user("0000000c", "0000000b", "x".repeat(3 * MB)))}\n`,
  );
  const path = await fileOf(dir.path, sessionBytes([a, b, huge]));
  for (const window of [true, false]) {
    await using s = await Session.open(path, { window, maxLineBytes: MB });
    deepStrictEqual(kinds(s), ["oversized-line"]);
    deepStrictEqual(texts(s), ["first", "second"]);
    equal(s.leafId, "0000000b");
  }
  // Under the default limit (64 MiB) the line is read.
  await bothWays(path, (s, how) => equal(s.leafId, "0000000c", how));
});

Deno.test("Session.open() on a line 1 of 40 MB: skipped, the header on line 2 still read", async () => {
  await using dir = await tempDir();
  const junk = enc.encode(`${"j".repeat(40 * MB)}\n`);
  const bytes = sessionBytes([a, b], { slot: false });
  const path = await fileOf(dir.path, new Uint8Array([...junk, ...bytes]));
  await bothWays(path, (s, how) => {
    equal(s.header.id, HEADER.id, how);
    deepStrictEqual(texts(s), ["first", "second"], how);
    deepStrictEqual(kinds(s), ["oversized-line"], how); // line 1, unread
  });
  if (HAS_PROC) {
    const mb = await rssGrowthMB(path);
    ok(mb < 64, `peak RSS grew ${mb} MB for a 40 MB line`);
  }
});

Deno.test("Session.open() on a slot-less file whose first entry is 2 MB: read both ways (the head's limit is the header's, not the entry's)", async () => {
  await using dir = await tempDir();
  const big = user("0000000a", null, "z".repeat(2 * MB));
  const path = await fileOf(
    dir.path,
    sessionBytes([big, b], { slot: false }),
  );
  await bothWays(path, (s, how) => {
    deepStrictEqual(kinds(s), [], how);
    deepStrictEqual(texts(s), ["z".repeat(2 * MB), "second"], how);
  });
});

Deno.test("Session.open() on a header of 1.5 MB after the slot: the same clear SessionSyntaxError both ways", async () => {
  await using dir = await tempDir();
  // Within the windowed open's first read (2 MiB), over a header's 1 MiB.
  const header = { ...HEADER, cwd: `/${"c".repeat(1.5 * MB)}` };
  const path = await fileOf(dir.path, sessionBytes([a], { header }));
  for (const window of [true, false]) {
    await rejects(Session.open(path, { window }), (err) => {
      ok(err instanceof SessionSyntaxError, String(err));
      ok(err.reason.startsWith("the header is longer"), err.reason);
      equal(err.line, 2);
      return true;
    });
  }
});

Deno.test("Session.open() on two JSON objects glued on one line keeps the first, as omp does", async () => {
  await using dir = await tempDir();
  // omp appends right after a line that lost its "\n".
  const glued = `${JSON.stringify(b)}${
    JSON.stringify(user("0000000c", "0000000b", "third"))
  }`;
  const path = await fileOf(dir.path, sessionBytes([a, glued]));
  await bothWays(path, (s, how) => {
    deepStrictEqual(kinds(s), ["glued-line"], how);
    deepStrictEqual(texts(s), ["first", "second"], how);
    equal(s.leafId, "0000000b", how);
  });
});

Deno.test("Session.open() reads a file with a UTF-8 byte order mark before the title slot", async () => {
  await using dir = await tempDir();
  const bytes = sessionBytes([a, b], { title: "Keep me" });
  const path = await fileOf(
    dir.path,
    new Uint8Array([0xef, 0xbb, 0xbf, ...bytes]),
  );
  await bothWays(path, (s, how) => {
    equal(s.title, "Keep me", how);
    deepStrictEqual(kinds(s), ["title-slot"], how);
    deepStrictEqual(texts(s), ["first", "second"], how);
  });
});

Deno.test("Session.open() agrees both ways on a damaged line over 4 KiB on the path before the window", async () => {
  await using dir = await tempDir();
  const big = JSON.stringify(user("0000000b", "0000000a", "y".repeat(10_000)))
    .replace('"timestamp"', '"x":\u0001bad,"timestamp"');
  const reset = {
    type: "reset_boundary",
    id: "0000000c",
    parentId: "0000000b",
    timestamp: HEADER.timestamp,
  };
  const path = await fileOf(
    dir.path,
    sessionBytes([
      {
        type: "thinking_level_change",
        id: "00000001",
        parentId: null,
        timestamp: HEADER.timestamp,
        thinkingLevel: "high",
      },
      { ...a, parentId: "00000001" },
      big,
      reset,
      user("0000000d", "0000000c", "after"),
    ]),
  );
  const contexts: string[] = [];
  const issues: string[] = [];
  await bothWays(path, (s) => {
    const ctx = s.buildContext();
    equal(ctx.thinkingLevel, "high");
    equal(ctx.pathEnd, "root");
    contexts.push(JSON.stringify(ctx));
    // The offset pins the line: a windowed open reads backwards and does
    // not know line numbers (it gives 0).
    issues.push(JSON.stringify(s.issues.map((i) => [i.kind, i.offset])));
  });
  equal(contexts[0], contexts[1]);
  equal(issues[0], issues[1]); // the same damage, at the same place
  ok(issues[0]!.includes("damaged-entry"), issues[0]);
});

Deno.test("Session.open() on a header line over its 1 MiB bound: a clear SessionSyntaxError", async () => {
  await using dir = await tempDir();
  // Line 1 the title slot, line 2 a header of 2 MiB.
  const slot = new TextDecoder().decode(sessionBytes([])).split("\n")[0]!;
  const header = JSON.stringify({ ...HEADER, cwd: "/".repeat(2 * MB) });
  const path = await fileOf(dir.path, enc.encode(`${slot}\n${header}\n`));
  for (const window of [true, false]) {
    await rejects(Session.open(path, { window }), (err) => {
      ok(err instanceof SessionSyntaxError, String(err));
      ok(/longer than/.test(err.message), err.message);
      ok(err.message.includes(path), err.message);
      return true;
    });
  }
});

Deno.test("Session.windowStats().bytesRead counts each byte read once, however many reads covered it", async () => {
  await using dir = await tempDir();
  const bytes = sessionBytes([a, b]);
  const path = await fileOf(dir.path, bytes);
  await using s = await Session.open(path);
  equal(s.windowStats().bytesRead, bytes.length);
  // Past the first 64 KiB read too: a file without a checkpoint is read
  // back to its start, each byte once.
  const entries = [a];
  let parent = "0000000a";
  for (let i = 0; i < 200; i++) {
    const id = (0x100 + i).toString(16).padStart(8, "0");
    entries.push(user(id, parent, "z".repeat(2_000)));
    parent = id;
  }
  const large = sessionBytes(entries);
  ok(large.length > 4 * 64 * 1024);
  const path2 = await fileOf(dir.path, large);
  await using s2 = await Session.open(path2);
  // A line of the window across a block's edge is read once more, whole
  // (here blocks of 64, 128 and 256 KiB), yet its bytes count once.
  equal(s2.windowStats().bytesRead, large.length);
  equal(s2.windowStats().windowed, false);
});

// --- The rest of the corpus: each case against a time bound -------------

/** Fails the case when `work` has not settled within `ms`: a hang is a failure, not a stuck suite. */
async function within<T>(ms: number, what: string, work: () => Promise<T>) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what}: still waiting after ${ms} ms`)),
      ms,
    );
  });
  try {
    return await Promise.race([work(), hang]);
  } finally {
    clearTimeout(timer);
  }
}

async function mkfifo(path: string): Promise<boolean> {
  try {
    return (await new Deno.Command("mkfifo", { args: [path] }).output())
      .success;
  } catch {
    return false;
  }
}

/** A data dir with one session of two entries; its path. */
async function dataDirSession(root: string, bytes = sessionBytes([a, b])) {
  const folder = `${root}/sessions/-app`;
  await Deno.mkdir(folder, { recursive: true });
  const path = `${folder}/s.jsonl`;
  await Deno.writeFile(path, bytes);
  return path;
}

Deno.test(
  "The hostile corpus: every case fails fast with a clear error, or reads around the damage, and changes nothing it should not",
  {
    ignore: Deno.build.os === "windows",
  },
  async (t) => {
    await using dir = await tempDir();
    let n = 0;
    const fresh = async () => {
      const root = `${dir.path}/case-${n++}`;
      await Deno.mkdir(root);
      return root;
    };
    const BOUND = 10_000;

    await t.step(
      "a FIFO given as a session: open and fork refuse it at once",
      async () => {
        const root = await fresh();
        const fifo = `${root}/fifo.jsonl`;
        if (!await mkfifo(fifo)) return; // no mkfifo here: nothing to test
        await within(BOUND, "open of a FIFO", () =>
          rejects(
            Session.open(fifo),
            /Cannot open ".*fifo\.jsonl": it is a FIFO/,
          ));
        await within(
          BOUND,
          "fork of a FIFO",
          () => rejects(forkSession(fifo, `${root}/copy.jsonl`), /FIFO/),
        );
        for (const command of ["show", "context", "stats", "tree", "tail"]) {
          const r = await within(
            BOUND,
            `cli ${command} of a FIFO`,
            () => cliInProcess([command, fifo]),
          );
          equal(r.code, 1, `${command}: ${r.stderr}`);
          ok(
            r.stderr.includes("fifo.jsonl") && /FIFO/.test(r.stderr),
            r.stderr,
          );
        }
      },
    );

    await t.step(
      "a character device given as a session: refused at once",
      async () => {
        await within(
          BOUND,
          "open of /dev/zero",
          () => rejects(Session.open("/dev/zero"), /it is a character device/),
        );
        for (const command of ["show", "context", "stats"]) {
          const r = await within(
            BOUND,
            `cli ${command} /dev/zero`,
            () => cliInProcess([command, "/dev/zero"]),
          );
          equal(r.code, 1, `${command}: ${r.stderr}`);
          ok(/character device/.test(r.stderr), r.stderr);
        }
      },
    );

    await t.step(
      "a FIFO at the lock path: the append fails at once, writing nothing",
      async () => {
        const root = await fresh();
        const path = await dataDirSession(root);
        if (!await mkfifo(`${root}/sessions/-app/.s.jsonl.lock`)) return;
        const before = await Deno.readFile(path);
        await using s = await Session.open(path);
        await within(BOUND, "append beside a FIFO lock", () =>
          rejects(
            s.appendMessage({ role: "user", content: "x" }),
            /the lock file ".*\.s\.jsonl\.lock" is a FIFO/,
          ));
        deepStrictEqual(await Deno.readFile(path), before);
      },
    );

    await t.step(
      "a lock file naming this process's pid, not held: stale, taken over",
      async () => {
        const root = await fresh();
        const path = await dataDirSession(root);
        await Deno.writeTextFile(
          `${root}/sessions/-app/.s.jsonl.lock`,
          `${Deno.pid}:${Date.now()}\n`,
        );
        await using s = await Session.open(path, { lockTimeoutMs: 200 });
        await within(
          BOUND,
          "append over an own-pid lock",
          () => s.appendMessage({ role: "user", content: "after" }),
        );
        equal((await Session.open(path)).entries.length, 3);
      },
    );

    await t.step("a CRLF file and a BOM file: renamed whole", async () => {
      for (
        const [name, bytes] of [
          [
            "crlf",
            enc.encode(
              new TextDecoder().decode(sessionBytes([a, b])).replaceAll(
                "\n",
                "\r\n",
              ),
            ),
          ],
          ["bom", new Uint8Array([0xef, 0xbb, 0xbf, ...sessionBytes([a, b])])],
        ] as const
      ) {
        const root = await fresh();
        const path = await dataDirSession(root, bytes);
        await using s = await Session.open(path);
        await s.setTitle(`Renamed ${name}`);
        await using again = await Session.open(path);
        equal(again.title, `Renamed ${name}`, name);
        equal(
          again.entries.filter((e) => e.type === "title_change").length,
          1,
          name,
        );
        deepStrictEqual(texts(again), ["first", "second"], name);
      }
    });

    await t.step(
      "an append whose parentId names no entry: refused, nothing written",
      async () => {
        const root = await fresh();
        const path = await dataDirSession(root);
        const before = await Deno.readFile(path);
        await using s = await Session.open(path);
        await rejects(
          s.append({ type: "custom", customType: "x", data: 1 }, {
            parentId: "deadbeef",
          }),
          /no entry has the id "deadbeef"/,
        );
        deepStrictEqual(await Deno.readFile(path), before);
      },
    );

    await t.step(
      "a fork of a file with a torn last line: whole lines only, the tail reported",
      async () => {
        const root = await fresh();
        const torn = enc.encode(
          '{"type":"message","id":"0000000c","parentId":"0000000b","tim',
        );
        const path = await dataDirSession(
          root,
          new Uint8Array([...sessionBytes([a, b]), ...torn]),
        );
        const fork = await forkSession(
          path,
          `${root}/sessions/-app/fork.jsonl`,
        );
        equal(fork.issues.length, 1);
        await using copy = await Session.open(fork.path);
        deepStrictEqual(kinds(copy), []);
        deepStrictEqual(texts(copy), ["first", "second"]);
      },
    );

    await t.step(
      "a version 1 session: an append migrates it in place; its fork is a version 3 file that takes appends",
      async () => {
        const root = await fresh();
        const v1 = [
          JSON.stringify({
            type: "session",
            id: HEADER.id,
            timestamp: HEADER.timestamp,
            cwd: "/app",
          }),
          JSON.stringify({
            type: "message",
            timestamp: HEADER.timestamp,
            message: { role: "user", content: "old" },
          }),
        ].join("\n") + "\n";
        const path = await dataDirSession(root, enc.encode(v1));
        const fork = await forkSession(path, `${root}/sessions/-app/v3.jsonl`);
        {
          await using old = await Session.open(path);
          await old.appendMessage({ role: "user", content: "x" });
        }
        await using migrated = await Session.open(path);
        equal(migrated.header.version, 3);
        equal(migrated.buildContext().messages.length, 2);
        await using copy = await Session.open(fork.path);
        equal(copy.header.version, 3);
        await copy.appendMessage({ role: "user", content: "continued" });
        equal(
          (await Session.open(fork.path)).buildContext().messages.length,
          2,
        );
      },
    );

    await t.step(
      "a blob over the read bound: an issue naming it, the open goes on",
      async () => {
        const root = await fresh();
        const hex = "cd".repeat(32);
        const path = await dataDirSession(
          root,
          sessionBytes([{
            ...a,
            message: {
              role: "user",
              content: [{
                type: "image",
                mimeType: "image/png",
                data: `blob:sha256:${hex}`,
              }],
            },
          }]),
        );
        await Deno.mkdir(`${root}/blobs`);
        await Deno.writeFile(`${root}/blobs/${hex}`, new Uint8Array(0));
        await Deno.truncate(`${root}/blobs/${hex}`, 65 * MB); // sparse
        await bothWays(path, (s, how) => {
          deepStrictEqual(kinds(s), ["blob-too-large"], how);
          ok(s.issues[0]!.message.includes(hex), how);
        });
      },
    );

    await t.step(
      "a task result whose usage has no cost: written with one, as omp requires",
      async () => {
        const root = await fresh();
        const path = await dataDirSession(root);
        await using s = await Session.open(path);
        await s.appendMessage({
          role: "toolResult",
          toolCallId: "t1",
          toolName: "task",
          content: [{ type: "text", text: "done" }],
          details: { usage: { input: 1, output: 2 } },
          isError: false,
        } as never);
        const last = JSON.parse(
          (await Deno.readTextFile(path)).trimEnd().split("\n").at(-1)!,
        );
        equal(typeof last.message.details.usage.cost.total, "number");
      },
    );

    await t.step(
      "terminal escapes and prototype-named types in a session: the CLI prints none and counts them",
      async () => {
        const root = await fresh();
        const file = `${root}/hostile.jsonl`;
        await writeHostileSession(file);
        for (const command of ["context", "show", "stats", "tree", "tail"]) {
          const r = await within(
            BOUND,
            `cli ${command}`,
            () => cliInProcess([command, file]),
          );
          equal(r.code, 0, `${command}: ${r.stderr}`);
          ok(
            !CONTROL.test(r.stdout),
            `${command}: ${JSON.stringify(r.stdout)}`,
          );
        }
        const odd = await dataDirSession(
          root,
          sessionBytes([
            a,
            {
              type: "constructor",
              id: "0000000c",
              parentId: "0000000a",
              timestamp: HEADER.timestamp,
            },
            {
              type: "__proto__",
              id: "0000000d",
              parentId: "0000000c",
              timestamp: HEADER.timestamp,
            },
          ]),
        );
        const r = await cliInProcess(["stats", odd, "--json"]);
        equal(r.code, 0, r.stderr);
        const byType = JSON.parse(r.stdout).entriesByType;
        equal(byType.constructor, 1);
        equal(Object.getOwnPropertyDescriptor(byType, "__proto__")?.value, 1);
        ok(!r.stdout.includes("NaN") && !r.stdout.includes("function"));
      },
    );
  },
);
