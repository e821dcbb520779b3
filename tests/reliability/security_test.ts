/**
 * What a hostile file name, blob reference or data dir cannot make the store
 * do; the modes of what it creates whatever the umask; and that errors and
 * issues name the file and the position, never the content.
 *
 * @module
 */
import assert from "node:assert/strict";
import { withFs } from "../_fs_seam.ts";
import { dirname, join } from "node:path";
import {
  BlobStore,
  forkSession,
  listSessions,
  type LoadIssue,
  Session,
  SessionSyntaxError,
} from "../../mod.ts";
import {
  parseSessionFileName,
  sessionFileName,
} from "../../src/store/places.ts";
import { type Fs, realFs } from "../../src/_fs.ts";
import { assistant, sessionBytes, tempDir, user } from "../_session_files.ts";

const IS_WINDOWS = Deno.build.os === "windows";
const CAN_SET_UMASK =
  (await Deno.permissions.query({ name: "sys" })).state === "granted";
const SECRET = "SECRET-b9e1-must-not-leak";
const HEX = "0123456789abcdef".repeat(4);
const UUID = "01a0e775-0100-7eee-9510-1c122060007d";
const encoder = new TextEncoder();

/** `fs` recording `[call, path]` into `calls` for every call through it. */
function recorded<T extends object>(fs: T, calls: [string, string][]): T {
  return Object.fromEntries(
    Object.entries(fs).map(([name, op]) => [
      name,
      typeof op !== "function" ? op : (...args: unknown[]) => {
        calls.push([name, String(args[0])]);
        if (name === "rename" || name === "link") {
          calls.push([name, String(args[1])]);
        }
        return (op as (...a: unknown[]) => unknown)(...args);
      },
    ]),
  ) as T;
}

/** The real filesystem, recording `[call, path]` for every call through the seam. */
function recordingFs(): { fs: Fs; calls: [string, string][] } {
  const calls: [string, string][] = [];
  return { fs: recorded(realFs, calls), calls };
}

async function names(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(dir)) out.push(e.name);
  return out.sort();
}

async function mode(path: string): Promise<number> {
  return (await Deno.lstat(path)).mode! & 0o777;
}

// ------------------------------------------------------------- file names

Deno.test("parseSessionFileName() refuses traversal, absolute paths, separators and NULs", () => {
  const good = `2026-09-28T10-00-00-000Z_${UUID}.jsonl`;
  assert.deepEqual(parseSessionFileName(good), {
    timestamp: "2026-09-28T10:00:00.000Z",
    id: UUID,
  });
  const hostile = [
    `../${good}`,
    `../../${good}`,
    `/etc/${good}`,
    `/${good}`,
    `a/${good}`,
    `..\\${good}`,
    `C:\\x\\${good}`,
    `${good}/..`,
    `${good}\0`,
    `\0${good}`,
    `2026-09-28T10-00-00-000Z_${UUID}\0.jsonl`,
    `${good}\n`,
    `\n${good}`,
    `${good}.tmp`,
    `.${good}`,
    `.${good}.lock`,
    `2026-09-28T10-00-00-000Z_${UUID.replace("-", "/")}.jsonl`,
    `2026-09-28T10-00-00-000Z_${UUID}/.jsonl`,
    `２０２６-09-28T10-00-00-000Z_${UUID}.jsonl`, // fullwidth digits
    `2026-09-28T10-00-00-0000000000Z_${UUID}.jsonl`, // 10 fraction digits
    `2026-09-28T10-00-00-000Z_${UUID}.JSONL`,
    `2026-09-28T10:00:00.000Z_${UUID}.jsonl`,
    "",
    ".",
    "..",
  ];
  for (const name of hostile) {
    assert.equal(parseSessionFileName(name), undefined, JSON.stringify(name));
  }
});

Deno.test("sessionFileName() and Session.create() refuse a hostile id before any session path is built", async (t) => {
  const ts = "2026-09-28T10:00:00.000Z";
  for (
    const id of [
      "../../../etc/passwd",
      `${UUID}/../../x`,
      `${UUID}\0`,
      `/${UUID.slice(1)}`,
      "",
    ]
  ) {
    assert.throws(() => sessionFileName(ts, id), TypeError, JSON.stringify(id));
  }
  for (const bad of ["../2026-09-28T10:00:00.000Z", `${ts}/..`, `${ts}\0`]) {
    assert.throws(() => sessionFileName(bad, UUID), TypeError);
  }
  await t.step("Session.create() with such an id makes nothing", async () => {
    await using dir = await tempDir();
    const { fs, calls } = recordingFs();
    await withFs(fs, async () => {
      await assert.rejects(
        Session.create({
          cwd: "/home/dev/app",
          dataDir: join(dir.path, "agent"),
          id: "../../../../escape",
        }),
        TypeError,
      );
    });
    // Only the cwd's canonical form was looked up; no path holds the id.
    assert.ok(calls.every(([, p]) => !p.includes("escape")), String(calls));
    assert.ok(calls.every(([call]) => call === "realPath"), String(calls));
    assert.deepEqual(await names(dir.path), []);
  });
  await t.step(
    "a hostile cwd stays one folder below <dataDir>/sessions",
    async () => {
      await using dir = await tempDir();
      const dataDir = join(dir.path, "agent");
      for (const cwd of ["/../../../../etc", "/a/../../..", "../../..", "/"]) {
        const s = await Session.create({ cwd, dataDir });
        assert.equal(dirname(dirname(s.path!)), join(dataDir, "sessions"));
        const slug = dirname(s.path!).slice(
          join(dataDir, "sessions").length + 1,
        );
        assert.ok(slug.startsWith("-") && !slug.includes("/"), slug);
      }
    },
  );
});

// ------------------------------------------------------------- blob refs

/** References that must be refused before any path is built from them. */
const HOSTILE_REFS = [
  "blob:sha256:../../../../etc/passwd",
  `blob:sha256:../${HEX.slice(3)}`,
  `blob:sha256:./${HEX.slice(2)}`,
  `blob:sha256:/${HEX.slice(1)}`,
  `blob:sha256:${HEX.slice(1)}/`,
  `blob:sha256:${HEX.toUpperCase()}`,
  `blob:sha256:${HEX}\0`,
  `blob:sha256:${HEX.slice(1)}\0`,
  `blob:sha256:${HEX}\r`,
  `blob:sha256:${HEX}\n`,
  `blob:sha256:${HEX} `,
  `blob:sha256:${HEX.slice(0, 63)}ａ`, // fullwidth a
  `blob:sha256:${HEX.slice(0, 63)}а`, // Cyrillic a
  `blob:sha256:${HEX.slice(0, 63)}`,
  `blob:sha256:${HEX}0`,
  `blob:sha256:${HEX}/../../x`,
  "blob:sha256:%2e%2e%2fetc%2fpasswd",
  `blob:sha256:\\..\\${HEX.slice(4)}`,
  `blob:sha256:${HEX.slice(0, 32)}\u2028${HEX.slice(33)}`,
  `blob:SHA256:${HEX}`,
  `blob:sha1:${HEX}`,
  `file:///etc/passwd`,
  "/etc/passwd",
  HEX,
];

Deno.test("BlobStore refuses hostile references without a single filesystem call", async () => {
  const { fs, calls } = recordingFs();
  await using dir = await tempDir();
  const store = new BlobStore(join(dir.path, "blobs"));
  await withFs(fs, async () => {
    for (const ref of HOSTILE_REFS) {
      const label = JSON.stringify(ref);
      assert.throws(() => store.path(ref), TypeError, label);
      await assert.rejects(store.get(ref), TypeError, label);
      await assert.rejects(store.has(ref), TypeError, label);
      await assert.rejects(store.verify(ref), TypeError, label);
    }
  });
  assert.deepEqual(calls, []);
});

Deno.test("Session.open() reports hostile blob references in a file and follows none of them", async () => {
  await using dir = await tempDir();
  const dataDir = join(dir.path, "agent");
  const blobs = join(dataDir, "blobs");
  await Deno.mkdir(join(dataDir, "sessions"), { recursive: true });
  const secretBytes = encoder.encode(`${SECRET} outside`);
  await Deno.writeFile(join(dir.path, "passwd"), secretBytes);
  const store = new BlobStore(blobs);
  const real = await store.put(encoder.encode("a real blob"));
  const entries: Record<string, unknown>[] = [user("00000001", null, "hi")];
  let parent = "00000001";
  for (const [i, ref] of [...HOSTILE_REFS, real].entries()) {
    const id = (i + 2).toString(16).padStart(8, "0");
    entries.push(
      i % 2 === 0
        ? {
          ...user(id, parent, ""),
          message: {
            role: "user",
            content: [{ type: "image", mimeType: "image/png", data: ref }],
          },
        }
        : {
          type: "message",
          id,
          parentId: parent,
          timestamp: "2026-10-01T09:00:00.000Z",
          message: {
            role: "toolResult",
            toolCallId: "c",
            toolName: "read",
            content: [{ type: "text", text: ref }],
            isError: false,
          },
        },
    );
    parent = id;
  }
  const path = join(dataDir, "sessions", "hostile.jsonl");
  await Deno.writeFile(path, sessionBytes(entries));
  const { fs, calls } = recordingFs();
  for (const window of [true, false]) {
    calls.length = 0;
    await withFs(fs, async () => {
      await using s = await Session.open(path, { dataDir, window });
      const kinds = s.issues.map((i) => i.kind);
      assert.ok(kinds.includes("bad-blob-ref"));
      assert.ok(!kinds.includes("missing-blob"), "the real blob is found");
      const text = JSON.stringify(s.buildContext().messages);
      assert.ok(!text.includes(SECRET), "nothing read from outside");
      assert.ok(
        text.includes(encoder.encode("a real blob").toBase64()) ||
          text.includes("a real blob"),
      );
    });
    // Only the session file, the blobs folder and the one valid blob were
    // looked at (Session knows no index: it stats no index file).
    const touched = new Set(calls.map(([, p]) => p));
    assert.deepEqual(
      [...touched].sort(),
      [path, blobs, store.path(real)].sort(),
      JSON.stringify(calls),
    );
  }
});

// ----------------------------------------------------- symlinked blobs

Deno.test({
  name:
    "Session.open() and appends refuse a symlinked blobs folder and a symlinked blob, and say so",
  ignore: IS_WINDOWS,
  fn: async (t) => {
    await using dir = await tempDir();
    const outside = join(dir.path, "outside");
    await Deno.mkdir(outside);
    const secret = encoder.encode(`${SECRET} image bytes`);
    const hex = new Uint8Array(
      await crypto.subtle.digest("SHA-256", secret),
    ).toHex();
    await Deno.writeFile(join(outside, hex), secret);
    const ref = `blob:sha256:${hex}`;
    const bytes = sessionBytes([{
      ...user("00000001", null, ""),
      message: {
        role: "user",
        content: [{ type: "image", mimeType: "image/png", data: ref }],
      },
    }]);
    const secretBase64 = secret.toBase64();

    const check = async (dataDir: string, why: RegExp) => {
      const path = join(dataDir, "sessions", "s.jsonl");
      await Deno.mkdir(dirname(path), { recursive: true });
      await Deno.writeFile(path, bytes);
      for (
        const open of [
          () => Session.open(path, { dataDir }),
          () => Session.open(path, { dataDir, window: false }),
          () => Session.open(path), // data dir found by searching upwards
        ]
      ) {
        await using s = await open();
        const issue = s.issues.find((i) => i.kind === "missing-blob");
        assert.ok(issue, "reported");
        assert.match(issue.message, why);
        const text = JSON.stringify(s.buildContext().messages);
        assert.ok(text.includes(ref), "the reference stays in place");
        assert.ok(!text.includes(secretBase64), "the link was not followed");
      }
      // An append that would store a blob refuses to write through the link.
      const before = await Deno.readFile(path);
      await using s = await Session.open(path, { dataDir });
      await assert.rejects(
        s.appendMessage({
          role: "user",
          content: [{
            type: "image",
            mimeType: "image/png",
            data: new Uint8Array(2048).fill(1).toBase64(),
          }],
        }),
        /symbolic link/,
      );
      assert.deepEqual(await Deno.readFile(path), before);
    };

    await t.step("a blobs folder that is a link", async () => {
      const dataDir = join(dir.path, "linked-dir");
      await Deno.mkdir(dataDir);
      await Deno.symlink(outside, join(dataDir, "blobs"));
      await check(dataDir, /symbolic link/);
      assert.deepEqual(
        await names(outside),
        [hex],
        "nothing written through the link",
      );
    });
    await t.step("a blob file that is a link", async () => {
      const dataDir = join(dir.path, "linked-file");
      await Deno.mkdir(join(dataDir, "blobs"), { recursive: true });
      await Deno.symlink(join(outside, hex), join(dataDir, "blobs", hex));
      const path = join(dataDir, "sessions", "s.jsonl");
      await Deno.mkdir(dirname(path), { recursive: true });
      await Deno.writeFile(path, bytes);
      for (const window of [true, false]) {
        await using s = await Session.open(path, { dataDir, window });
        const issue = s.issues.find((i) => i.kind === "missing-blob");
        assert.match(issue?.message ?? "", /symbolic link/);
        const text = JSON.stringify(s.buildContext().messages);
        assert.ok(!text.includes(secretBase64), "the link was not followed");
      }
    });
  },
});

// ------------------------------------------------------------- modes

/** Creates a session (new folders), a blob with its twin, a rename, a fork; returns every path made. */
async function makeEverything(root: string): Promise<{
  files: string[];
  folders: string[];
}> {
  const dataDir = join(root, "fresh", "agent");
  const s = await Session.create({ cwd: "/home/dev/app", dataDir });
  await s.appendMessage({
    role: "user",
    content: [{
      type: "image",
      mimeType: "image/png",
      data: new Uint8Array(2048).map((_, i) => i & 0xff).toBase64(),
    }],
  });
  await s.ensureOnDisk();
  await s.appendMessage({ role: "user", content: "more" });
  await s.setTitle("Modes");
  await s.close();
  const fork = await forkSession(s.path!);
  const slug = dirname(s.path!);
  const blobs = join(dataDir, "blobs");
  const files = [s.path!, fork.path];
  for await (const e of Deno.readDir(blobs)) files.push(join(blobs, e.name));
  for await (const e of Deno.readDir(slug)) {
    if (e.name.endsWith(".lock.os")) files.push(join(slug, e.name));
  }
  return {
    files,
    folders: [
      join(root, "fresh"),
      dataDir,
      join(dataDir, "sessions"),
      slug,
      blobs,
    ],
  };
}

async function assertModes(made: { files: string[]; folders: string[] }) {
  for (const f of made.files) assert.equal(await mode(f), 0o600, f);
  for (const d of made.folders) assert.equal(await mode(d), 0o700, d);
}

Deno.test({
  name:
    "Session, BlobStore and forkSession make files 0600 and folders 0700 under a permissive umask (0)",
  ignore: IS_WINDOWS || !CAN_SET_UMASK,
  fn: async () => {
    await using dir = await tempDir();
    const old = Deno.umask(0);
    let made;
    try {
      made = await makeEverything(dir.path);
    } finally {
      Deno.umask(old);
    }
    assert.ok(made.files.length >= 5, String(made.files));
    await assertModes(made);
  },
});

/*
 * "whatever the umask" includes one that strips the owner's bits: the
 * session folders and the writer's lock gate are made through the seam and
 * chmodded after, so under umask 0o277 they are still 0700 and 0600 (a
 * non-root user can then create the session file and reopen the gate).
 */
Deno.test({
  name:
    "Session, BlobStore and forkSession make files 0600 and folders 0700 under a umask that strips the owner's bits (0o277)",

  fn: async () => {
    await using dir = await tempDir();
    const old = Deno.umask(0o277);
    let made;
    try {
      made = await makeEverything(dir.path);
    } finally {
      Deno.umask(old);
      await Deno.chmod(join(dir.path, "fresh"), 0o700).catch(() => {});
    }
    await assertModes(made);
  },
});

// ----------------------------------------------------- no content in errors

/** Lines of damage, each holding the secret. */
function damagedLines(): (string | Uint8Array)[] {
  return [
    `{"type":"message","id":"0000000a",${SECRET}}`, // not JSON
    `"${SECRET}"`, // JSON, not an object
    `[${JSON.stringify(SECRET)}]`,
    `{"type":"message","note":"${SECRET}"}`, // no id
    `{"id":"0000000b","note":"${SECRET}"}`, // no type
    `{"type":"message","id":"0000000c","parentId":{"x":"${SECRET}"}}`,
    new Uint8Array([...encoder.encode(`{"t":"${SECRET}`), 0xff, 0xfe, 0x0a]), // invalid UTF-8
    JSON.stringify(user("00000002", "00000001", `${SECRET} in a kept line`)),
    JSON.stringify(user("00000002", "00000001", "a duplicate id")),
    JSON.stringify({
      type: "custom",
      id: "00000003",
      parentId: "00000002",
      timestamp: "2026-10-01T09:00:00.000Z",
      customType: "branch",
      data: { to: SECRET },
    }), // a branch marker to nowhere, last but one
    JSON.stringify({
      ...user("00000004", "00000002", ""),
      message: {
        role: "user",
        content: [{
          type: "image",
          mimeType: "image/png",
          data: `blob:sha256:${SECRET}`,
        }],
      },
    }),
    JSON.stringify({
      ...user("00000005", "00000004", ""),
      message: {
        role: "user",
        content: [{
          type: "image",
          mimeType: "image/png",
          data: `blob:sha256:${HEX}`, // absent
        }],
      },
    }),
    JSON.stringify({
      type: "custom",
      id: "00000006",
      parentId: "00000005",
      timestamp: "2026-10-01T09:00:00.000Z",
      customType: "branch",
      data: { to: SECRET },
    }),
    new Uint8Array([...new Uint8Array(64), 0x0a]), // a line of NULs
    "",
    encoder.encode(`{"type":"message","id":"0000000d","x":"${SECRET}`), // torn
  ];
}

Deno.test("Session.open(), fromStream(), forkSession() and listSessions(): issues and errors name the file and the position, never the content", async (t) => {
  await using dir = await tempDir();
  const dataDir = join(dir.path, "agent");
  const folder = join(dataDir, "sessions", "--x--");
  await Deno.mkdir(folder, { recursive: true });
  await Deno.mkdir(join(dataDir, "blobs"));
  const said: string[] = [];
  const hear = (i: LoadIssue) => said.push(i.message);
  const noSecret = (what: string, text: string) =>
    assert.ok(!text.includes(SECRET), `${what} quotes the content: ${text}`);

  await t.step(
    "damaged entry lines are reported without their content",
    async () => {
      const path = join(folder, `2026-10-01T09-00-00-000Z_${UUID}.jsonl`);
      const lines = damagedLines();
      const bytes = sessionBytes([
        user("00000001", null, "first"),
        ...lines.map((l) => typeof l === "string" ? l : l),
      ]);
      await Deno.writeFile(path, bytes);
      for (const window of [true, false]) {
        said.length = 0;
        await using s = await Session.open(path, {
          dataDir,
          window,
          onIssue: hear,
        });
        assert.ok(said.length >= 3, said.join("\n"));
        for (const m of said) noSecret("an issue", m);
        for (const i of s.issues) noSecret("an issue", i.message);
        s.buildContext();
      }
      said.length = 0;
      await using s = await Session.fromStream(
        new Blob([bytes as BlobPart]).stream(),
        {
          dataDir,
          onIssue: hear,
        },
      );
      assert.ok(s.issues.length >= 8);
      for (const m of said) noSecret("an issue", m);
      const kinds = new Set(s.issues.map((i) => i.kind));
      for (
        const k of [
          "not-json",
          "not-an-entry",
          "invalid-utf8",
          "duplicate-id",
          "nul-fill",
          "blank-line",
          "bad-blob-ref",
          "missing-blob",
          "torn-line",
          "bad-branch-marker",
        ]
      ) {
        assert.ok(
          kinds.has(k as LoadIssue["kind"]),
          `${k} among ${[...kinds]}`,
        );
      }
    },
  );

  await t.step("a damaged slot is reported without its content", async () => {
    const path = join(folder, "slot.jsonl");
    const slot = JSON.stringify({
      type: "title",
      v: 1,
      title: SECRET,
      source: SECRET,
      updatedAt: "2026-10-01T09:00:00.000Z",
      pad: SECRET,
    });
    const body = new TextDecoder().decode(
      sessionBytes([user("00000001", null, "x")], { slot: false }),
    );
    await Deno.writeTextFile(path, `${slot}\n${body}`);
    said.length = 0;
    await using s = await Session.open(path, { dataDir, onIssue: hear });
    assert.deepEqual(s.issues.map((i) => i.kind), ["title-slot"]);
    for (const m of said) noSecret("an issue", m);
  });

  await t.step(
    "a damaged header is a SessionSyntaxError without its content",
    async () => {
      const headers = [
        `{"type":"session","version":3,"id":"x","cwd":"/","note":"${SECRET}"`, // torn
        `{"type":"${SECRET}","version":3,"id":"x"}`,
        `{"type":"session","version":"${SECRET}","id":"x"}`,
        `{"type":"session","version":3}`, // no id: only the slot
        `"${SECRET}"`,
        `${SECRET}`,
      ];
      for (const [i, header] of headers.entries()) {
        const path = join(folder, `bad-header-${i}.jsonl`);
        await Deno.writeFile(
          path,
          sessionBytes([`{"note":"${SECRET}"}`], { header }),
        );
        const bytes = await Deno.readFile(path);
        for (
          const load of [
            () => Session.open(path, { dataDir }),
            () => Session.open(path, { dataDir, window: false }),
            () =>
              Session.fromStream(new Blob([bytes as BlobPart]).stream(), {
                name: path,
              }),
            () => forkSession(path, join(folder, `fork-${i}.jsonl`)),
          ]
        ) {
          await assert.rejects(load(), (err) => {
            assert.ok(err instanceof SessionSyntaxError, String(err));
            noSecret("the error", err.message);
            assert.ok(err.message.includes(path), "names the file");
            assert.match(
              err.message,
              /\(line \d+, byte \d+\)$/,
              "and the position",
            );
            return true;
          });
        }
      }
    },
  );

  await t.step("listSessions() skips them without their content", async () => {
    const skipped: string[] = [];
    await listSessions(dataDir, {
      onSkip: (p, why) => skipped.push(`${p}: ${why}`),
    });
    assert.ok(skipped.length >= 5, skipped.join("\n"));
    for (const s of skipped) noSecret("a skip reason", s);
  });

  await t.step("a refused append does not quote what it refused", async () => {
    const path = join(folder, "append.jsonl");
    await Deno.writeFile(path, sessionBytes([user("00000001", null, "x")]));
    await using s = await Session.open(path, { dataDir });
    await assert.rejects(
      s.append({ type: "" } as never),
      (err) => {
        noSecret("the error", String(err));
        return true;
      },
    );
    await assert.rejects(s.branch(SECRET.slice(0, 8)), RangeError);
  });
});

Deno.test("Session.open() on a file with a secret in an assistant's error keeps it in memory but out of every issue", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "s.jsonl");
  await Deno.writeFile(
    path,
    sessionBytes([
      user("00000001", null, "hi"),
      assistant("00000002", "00000001", SECRET, { stopReason: "error" }),
      encoder.encode(`{"type":"message","id":"00000003","secret":"${SECRET}`),
    ]),
  );
  const said: string[] = [];
  await using s = await Session.open(path, {
    onIssue: (i) => said.push(i.message),
  });
  assert.deepEqual(s.issues.map((i) => i.kind), ["torn-line"]);
  for (const m of said) assert.ok(!m.includes(SECRET), m);
  assert.ok(JSON.stringify(s.getEntry("00000002")).includes(SECRET));
});
