import { deepStrictEqual, equal, ok, rejects } from "node:assert/strict";
import { type LoadIssueKind, Session, SessionSyntaxError } from "../../mod.ts";
import {
  assistant,
  chunked,
  HEADER,
  sessionBytes,
  tempDir,
  user,
} from "../_session_files.ts";

const enc = new TextEncoder();
const CHUNKS = [1, 2, 7, 64, 4096, 1 << 20];

/** Open `bytes` as a stream with every chunk size, and as a file; all must agree. */
async function openEveryWay(
  bytes: Uint8Array,
  check: (s: Session, how: string) => void | Promise<void>,
  chunks: number[] = CHUNKS,
): Promise<void> {
  for (const size of chunks) {
    await using s = await Session.fromStream(chunked(bytes, size));
    await check(s, `chunks of ${size}`);
  }
  await using dir = await tempDir();
  const path = `${dir.path}/s.jsonl`;
  await Deno.writeFile(path, bytes);
  {
    await using s = await Session.open(path);
    await check(s, "file");
  }
  await using full = await Session.open(path, { window: false });
  await check(full, "file, full read");
}

const kinds = (s: Session): LoadIssueKind[] => s.issues.map((i) => i.kind);
const texts = (s: Session): string[] =>
  s.buildContext().messages.map((m) => {
    const c = (m as { content: { text: string }[] }).content;
    return c[0]!.text;
  });

const a = user("0000000a", null, "first ✓ 数据");
const b = assistant("0000000b", "0000000a", "second 🎉");
const c = user("0000000c", "0000000b", "third");

Deno.test("Session.open() skips a torn last line and reports it", async () => {
  const torn = enc.encode(JSON.stringify(c).slice(0, 40)); // no "\n": an append cut short
  await openEveryWay(sessionBytes([a, b, torn]), (s, how) => {
    deepStrictEqual(kinds(s), ["torn-line"], how);
    equal(s.leafId, "0000000b", how);
    deepStrictEqual(texts(s), ["first ✓ 数据", "second 🎉"], how);
    // Read backwards, the line number is unknown; the byte offset is not.
    equal(s.issues[0]!.line, how === "file" ? 0 : 5, how);
    equal(s.issues[0]!.offset, sessionBytes([a, b]).length, how);
  });
});

Deno.test("Session.open() keeps a last line without a newline and reports it", async () => {
  const last = enc.encode(JSON.stringify(c));
  await openEveryWay(sessionBytes([a, b, last]), (s, how) => {
    deepStrictEqual(kinds(s), ["missing-newline"], how);
    equal(s.leafId, "0000000c", how);
  });
});

Deno.test("Session.open() reads around a line that is not JSON; the path stops at the missing parent", async () => {
  await openEveryWay(sessionBytes([a, "{not json", b, c]), (s, how) => {
    deepStrictEqual(kinds(s), ["not-json"], how);
    equal(s.entries.length, 3, how);
  });
  // The unreadable line was an entry: its child's path ends there.
  await openEveryWay(
    sessionBytes([a, JSON.stringify(b).slice(0, 30), c]),
    (s, how) => {
      deepStrictEqual(kinds(s), ["not-json", "path-cut"], how);
      const ctx = s.buildContext();
      equal(ctx.pathEnd, "missing-parent", how);
      deepStrictEqual(ctx.activePath.map((e) => e.id), ["0000000c"], how);
    },
  );
});

Deno.test("Session.open() reads around a NUL-filled tail", async () => {
  const nul = new Uint8Array(4096);
  await openEveryWay(sessionBytes([a, b, nul]), (s, how) => {
    deepStrictEqual(kinds(s), ["nul-fill"], how);
    equal(s.leafId, "0000000b", how);
  });
});

Deno.test("Session.open() reads CRLF endings and blank lines", async () => {
  const text = new TextDecoder().decode(sessionBytes([a, "", b, c])).replaceAll(
    "\n",
    "\r\n",
  );
  await openEveryWay(enc.encode(text), (s, how) => {
    // The CRLF slot line is 257 bytes: reported, since it cannot be
    // rewritten in place.
    deepStrictEqual(kinds(s), ["title-slot", "blank-line"], how);
    deepStrictEqual(texts(s), ["first ✓ 数据", "second 🎉", "third"], how);
  });
});

Deno.test("Session.open() reads a line of 20 MB", async () => {
  const big = "é".repeat(10 << 20);
  const huge = user("0000000d", "0000000c", big);
  await openEveryWay(sessionBytes([a, b, c, huge]), (s, how) => {
    deepStrictEqual(kinds(s), [], how);
    equal(texts(s).at(-1)!.length, big.length, how);
  }, [4093, 65536, 1 << 20]);
});

Deno.test("Session.open() reads invalid UTF-8 as U+FFFD in memory and reports it", async () => {
  const bad = enc.encode(JSON.stringify(c));
  const at = JSON.stringify(c).indexOf("third");
  bad[at] = 0xff;
  const line = new Uint8Array([...bad, 10]);
  await openEveryWay(sessionBytes([a, b, line]), (s, how) => {
    deepStrictEqual(kinds(s), ["invalid-utf8"], how);
    ok(texts(s).at(-1)!.includes("\uFFFD"), how);
  });
});

Deno.test("Session.open() title slot", async (t) => {
  await t.step("a file without a slot (header first) loads", async () => {
    await openEveryWay(
      sessionBytes([a, b], {
        slot: false,
        header: { ...HEADER, title: "From the header" },
      }),
      (s, how) => {
        deepStrictEqual(kinds(s), [], how);
        equal(s.titleSlot, undefined, how);
        equal(s.title, "From the header", how);
      },
    );
  });
  await t.step(
    "a malformed slot is ignored and reported; the file loads",
    async () => {
      const slot = JSON.stringify({
        type: "title",
        v: 1,
        title: "x",
        source: "robot",
        updatedAt: HEADER.timestamp,
        pad: "",
      });
      await openEveryWay(
        sessionBytes([JSON.stringify(HEADER), a, b], {
          slot: false,
          header: slot,
        }),
        (s, how) => {
          deepStrictEqual(kinds(s).slice(0, 1), ["title-slot"], how);
          equal(s.title, undefined, how);
          equal(s.leafId, "0000000b", how);
        },
      );
    },
  );
  await t.step("a slot of the wrong width is used and reported", async () => {
    const slot = JSON.stringify({
      type: "title",
      v: 1,
      title: "Short",
      source: "auto",
      updatedAt: HEADER.timestamp,
      pad: "",
    });
    await openEveryWay(
      sessionBytes([JSON.stringify(HEADER), a], { slot: false, header: slot }),
      (s, how) => {
        deepStrictEqual(kinds(s), ["title-slot"], how);
        equal(s.title, "Short", how);
      },
    );
  });
  await t.step("garbage on line 1 and the header on line 2 loads", async () => {
    await openEveryWay(
      sessionBytes([JSON.stringify(HEADER), a], {
        slot: false,
        header: "%%garbage",
      }),
      (s, how) => {
        deepStrictEqual(kinds(s), ["not-json"], how);
        equal(s.header.id, HEADER.id, how);
      },
    );
  });
});

Deno.test("Session.open() throws SessionSyntaxError for an unreadable header", async (t) => {
  const cases: [string, Uint8Array][] = [
    ["an empty file", new Uint8Array()],
    [
      "a slot and nothing else",
      sessionBytes([], { header: "" }).subarray(0, 256),
    ],
    ["a header that is not JSON", sessionBytes([a], { header: "{nope" })],
    [
      "a header of another type",
      sessionBytes([a], { header: { ...HEADER, type: "message" } }),
    ],
    [
      "a header without an id",
      sessionBytes([a], { header: { type: "session", version: 3 } }),
    ],
    [
      "a header whose version is a string",
      sessionBytes([a], { header: { ...HEADER, version: "3" } }),
    ],
    ["entries where the header should be", sessionBytes([b], { header: a })],
  ];
  for (const [name, bytes] of cases) {
    await t.step(name, async () => {
      const err = await rejects(
        Session.fromStream(chunked(bytes, 3), { name: "t.jsonl" }),
        SessionSyntaxError,
      );
      void err;
    });
  }
  await t.step(
    "the message names the file and the position, not the content",
    async () => {
      try {
        await Session.fromStream(
          chunked(
            sessionBytes([a], { header: { type: "secret-content" } }),
            64,
          ),
          { name: "t.jsonl" },
        );
        throw new Error("no error");
      } catch (err) {
        ok(err instanceof SessionSyntaxError);
        equal(err.line, 2);
        equal(err.offset, 256);
        ok(err.message.startsWith('Cannot read session "t.jsonl"'));
        ok(!err.message.includes("secret-content"));
      }
    },
  );
});

Deno.test("Session.open() reads a future version as version 3 and reports it", async () => {
  await openEveryWay(
    sessionBytes([a, b], {
      header: { ...HEADER, version: 4, newField: { x: 1 } },
    }),
    (s, how) => {
      deepStrictEqual(kinds(s), ["future-version"], how);
      deepStrictEqual(s.header.newField, { x: 1 }, how);
      equal(s.buildContext().messages.length, 2, how);
    },
  );
});

Deno.test("Session.open() lets a later duplicate id win and reports it", async () => {
  const b2 = assistant("0000000b", "0000000a", "second, again");
  await openEveryWay(sessionBytes([a, b, b2]), (s, how) => {
    deepStrictEqual(kinds(s), ["duplicate-id"], how);
    deepStrictEqual(texts(s), ["first ✓ 数据", "second, again"], how);
  });
});

Deno.test("Session.open() keeps unknown entry types and unknown header fields", async () => {
  const probe = {
    type: "future_thing",
    id: "0000000e",
    parentId: "0000000b",
    timestamp: HEADER.timestamp,
    blob: [1, 2],
  };
  await openEveryWay(
    sessionBytes([a, b, probe, { ...c, parentId: "0000000e" }], {
      header: { ...HEADER, extra: true },
    }),
    (s, how) => {
      deepStrictEqual(kinds(s), [], how);
      equal(s.header.extra, true, how);
      deepStrictEqual(s.buildContext().activePath.map((e) => e.type), [
        "message",
        "message",
        "future_thing",
        "message",
      ], how);
    },
  );
});

Deno.test("Session.open() migrates a version 2 file: hookMessage becomes custom", async () => {
  const hook = {
    type: "message",
    id: "0000000f",
    parentId: "0000000b",
    timestamp: HEADER.timestamp,
    message: {
      role: "hookMessage",
      customType: "note",
      content: "from a hook",
      display: true,
    },
  };
  await openEveryWay(
    sessionBytes([a, b, hook], { header: { ...HEADER, version: 2 } }),
    (s, how) => {
      ok(s.migrated, how);
      equal(s.header.version, 2, how); // never rewritten
      deepStrictEqual(s.buildContext().messages.map((m) => m.role), [
        "user",
        "assistant",
        "custom",
      ], how);
    },
  );
});

Deno.test("Session.open() migrates a version 1 file: ids, a parent chain, firstKeptEntryIndex", async () => {
  const v1 = (e: Record<string, unknown>): Record<string, unknown> => {
    const { id: _i, parentId: _p, ...rest } = e;
    return rest;
  };
  const compaction = {
    type: "compaction",
    timestamp: HEADER.timestamp,
    summary: "S",
    firstKeptEntryIndex: 2,
    tokensBefore: 9,
  };
  const header = {
    type: "session",
    id: HEADER.id,
    timestamp: HEADER.timestamp,
    cwd: HEADER.cwd,
  };
  await openEveryWay(
    sessionBytes([v1(a), v1(b), compaction, v1(c)], { slot: false, header }),
    (s, how) => {
      ok(s.migrated, how);
      deepStrictEqual(s.entries.map((e) => [e.id, e.parentId]), [
        ["00000001", null],
        ["00000002", "00000001"],
        ["00000003", "00000002"],
        ["00000004", "00000003"],
      ], how);
      // Record 2 is the second entry (the header is record 0).
      equal(
        (s.entries[2] as { firstKeptEntryId?: string }).firstKeptEntryId,
        "00000002",
        how,
      );
      deepStrictEqual(s.buildContext().messages.map((m) => m.role), [
        "compactionSummary",
        "assistant",
        "user",
      ], how);
    },
  );
});

Deno.test("Session.open() fails fast, naming the file, on what is not a regular file", async (t) => {
  const dir = await Deno.makeTempDir();
  try {
    if (Deno.build.os !== "windows") {
      await t.step("a FIFO", async () => {
        const fifo = `${dir}/pipe.jsonl`;
        const mk = await new Deno.Command("mkfifo", { args: [fifo] }).output();
        if (!mk.success) return; // no mkfifo here
        await rejects(Session.open(fifo), (err: Error) => {
          equal(
            err.message,
            `Cannot open "${fifo}": it is a FIFO (named pipe)`,
          );
          return true;
        });
      });
      await t.step("a character device", async () => {
        await rejects(Session.open("/dev/zero"), (err: Error) => {
          equal(
            err.message,
            'Cannot open "/dev/zero": it is a character device',
          );
          return true;
        });
      });
    }
    await t.step("a folder", async () => {
      await rejects(Session.open(dir), (err: Error) => {
        equal(err.message, `Cannot open "${dir}": it is a folder`);
        return true;
      });
    });
    await t.step("a missing file keeps its class", async () => {
      await rejects(Session.open(`${dir}/none.jsonl`), Deno.errors.NotFound);
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
