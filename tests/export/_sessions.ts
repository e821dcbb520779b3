/**
 * Shared by the export tests (no tests of its own): sessions to export, in
 * a data dir of their own: one with every kind of message, images (a blob,
 * inline base64, a missing blob), branches and damaged lines; one whose
 * every string is hostile markup.
 */
import { join } from "node:path";
import type { FileInfo } from "../../src/_fs.ts";
import {
  assistant,
  sessionBytes,
  T0,
  toolResult,
  user,
} from "../_session_files.ts";

/**
 * A session file's metadata that matches no file (no inode): for the
 * export's parts tested alone, which take the file they must never replace.
 */
export const NO_SESSION: FileInfo = {
  kind: "file",
  size: 0,
  mtimeMs: 0,
  birthtimeMs: null,
  ino: 0,
  dev: 0,
  mode: 0,
};

/** A valid 1×1 PNG. */
export const PNG = Uint8Array.fromBase64(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
);

/** Its SHA-256, the name of its blob. */
export const PNG_HEX = new Uint8Array(
  await crypto.subtle.digest("SHA-256", PNG),
).toHex();

/** A data dir holding one session file and a blob store. */
export interface TestSession extends AsyncDisposable {
  /** The data dir (a temp dir). */
  root: string;
  /** The session file, `<root>/sessions/s.jsonl`. */
  path: string;
  /** A folder for output, `<root>/out`. */
  out: string;
}

/**
 * Write a session in a fresh data dir, with {@linkcode PNG} in its blob
 * store.
 *
 * @param bytes The session's bytes.
 */
export async function testSession(bytes: Uint8Array): Promise<TestSession> {
  const root = await Deno.makeTempDir({ prefix: "xdev-export-test-" });
  await Deno.mkdir(join(root, "sessions"));
  await Deno.mkdir(join(root, "blobs"));
  await Deno.mkdir(join(root, "out"));
  await Deno.writeFile(join(root, "blobs", PNG_HEX), PNG);
  const path = join(root, "sessions", "s.jsonl");
  await Deno.writeFile(path, bytes);
  return {
    root,
    path,
    out: join(root, "out"),
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
}

const _at = (minute: number) =>
  `2026-10-01T09:${String(minute).padStart(2, "0")}:00.000Z`;

/** A message entry at a minute past nine: its envelope and its message. */
function _timed(
  entry: Record<string, unknown>,
  minute: number,
): Record<string, unknown> {
  const message = entry.message as Record<string, unknown>;
  return {
    ...entry,
    timestamp: _at(minute),
    message: { ...message, timestamp: Date.parse(_at(minute)) },
  };
}

/**
 * A session of three turns, with thinking, tool calls and results (one an
 * error), images (the blob, inline base64, a missing blob), a compaction-free
 * branch (the user went back after turn 1), and two damaged lines (one not
 * JSON, one torn at the end). The active branch's messages, in order, say:
 * `Turn one`, `Answer one`, tool call `read`, `File contents`, `Turn three`,
 * `Answer three` … (see {@linkcode RICH_ACTIVE_TEXTS}).
 */
export function richSession(): Uint8Array {
  const missing = "f".repeat(64);
  const entries = [
    {
      type: "model_change",
      id: "a0000001",
      parentId: null,
      timestamp: T0,
      model: "anthropic/claude-sonnet-4-5",
    },
    _timed(user("a0000002", "a0000001", "Turn one: read `main.ts` please"), 1),
    _timed(
      assistant("a0000003", "a0000002", [
        { type: "thinking", thinking: "I should read the file first." },
        {
          type: "text",
          text: "Answer one: reading.\n\n```ts\nconst x = 1;\n```",
        },
        {
          type: "toolCall",
          id: "c1",
          name: "read",
          arguments: { path: "main.ts" },
        },
      ], { stopReason: "toolUse" }),
      2,
    ),
    _timed(
      toolResult("a0000004", "a0000003", "c1", [
        { type: "text", text: "File contents: export const x = 1;" },
        {
          type: "image",
          mimeType: "image/png",
          data: `blob:sha256:${PNG_HEX}`,
        },
      ]),
      3,
    ),
    '{"type":"message","id":"a0000099" this line is not JSON',
    // The abandoned branch: turn two, then the user went back to a0000004.
    _timed(user("a0000005", "a0000004", "Turn two (abandoned)"), 4),
    _timed(assistant("a0000006", "a0000005", "Answer two (abandoned)"), 5),
    {
      type: "custom",
      id: "a0000007",
      parentId: "a0000004",
      timestamp: _at(6),
      customType: "branch",
      data: { to: "a0000004" },
    },
    {
      ...user("a0000008", "a0000004", "Turn three: look at these"),
      timestamp: _at(7),
      message: {
        role: "user",
        content: [
          { type: "text", text: "Turn three: look at these" },
          { type: "image", mimeType: "image/png", data: PNG.toBase64() },
          {
            type: "image",
            mimeType: "image/png",
            data: `blob:sha256:${missing}`,
          },
        ],
        timestamp: Date.parse(_at(7)),
      },
    },
    _timed(
      assistant("a0000009", "a0000008", [
        {
          type: "toolCall",
          id: "c2",
          name: "bash",
          arguments: { cmd: "false" },
        },
      ], { stopReason: "toolUse" }),
      8,
    ),
    {
      type: "message",
      id: "a000000a",
      parentId: "a0000009",
      timestamp: _at(9),
      message: {
        role: "toolResult",
        toolCallId: "c2",
        toolName: "bash",
        content: [{ type: "text", text: "Command failed: exit 1" }],
        isError: true,
        timestamp: Date.parse(_at(9)),
      },
    },
    _timed(
      assistant(
        "a000000b",
        "a000000a",
        "Answer three: it failed, as expected.",
      ),
      10,
    ),
    '{"type":"message","id":"a000000c","parentId":"a000000b","timesta',
  ];
  const torn = entries.pop() as string;
  return _withTornEnd(
    sessionBytes(entries, { title: "A rich session" }),
    torn,
  );
}

function _withTornEnd(bytes: Uint8Array, torn: string): Uint8Array {
  const tail = new TextEncoder().encode(torn);
  const out = new Uint8Array(bytes.length + tail.length);
  out.set(bytes);
  out.set(tail, bytes.length);
  return out;
}

/** Text each message of the rich session's active branch holds, in order. */
export const RICH_ACTIVE_TEXTS = [
  "Turn one",
  "Answer one",
  "File contents",
  "Turn three",
  "bash",
  "Command failed",
  "Answer three",
];

/**
 * Every hostile string, as text the page must show (never run); its
 * bidirectional controls must not reach the page.
 */
export const HOSTILE_TEXT =
  `<script>alert(1)</script> "onerror=alert(2) ' </details> ` +
  `[click](javascript:alert(3)) <a href="javascript:alert(4)">x</a> ` +
  `<img src=x onerror=alert(5)> </pre></code></article> &amp; \u0000 ` +
  `bidi \u202eevil\u202c \u2066iso\u2069 \u200f\u061c`;

/**
 * A session whose title, cwd, model, texts, tool names, custom type and
 * arguments all hold {@linkcode HOSTILE_TEXT}, with hostile images: an
 * `text/html` one, a `image/png` one whose bytes are HTML, an invalid blob
 * reference, and a tool output that tries to close a code fence.
 */
export function hostileSession(): Uint8Array {
  const h = HOSTILE_TEXT;
  const html = new TextEncoder().encode("<script>alert(6)</script>").toBase64();
  const entries = [
    {
      type: "model_change",
      id: "b0000001",
      parentId: null,
      timestamp: T0,
      model: `x/${h}`,
    },
    {
      type: "message",
      id: "b0000002",
      parentId: "b0000001",
      timestamp: _at(1),
      message: {
        role: "user",
        content: [
          { type: "text", text: `${h}\n\n\`\`\`\nunclosed fence ${h}` },
          { type: "image", mimeType: "text/html", data: html },
          { type: "image", mimeType: "image/png", data: html },
          {
            type: "image",
            mimeType: `image/png" onerror="alert(7)`,
            data: PNG.toBase64(),
          },
          {
            type: "image",
            mimeType: "image/png",
            data: "blob:sha256:../../../etc/passwd",
          },
        ],
      },
    },
    assistant("b0000003", "b0000002", [
      { type: "thinking", thinking: h },
      { type: "text", text: h },
      { type: "toolCall", id: "c1", name: h, arguments: { [h]: h } },
    ], {
      provider: h,
      model: h,
      stopReason: "toolUse",
      timestamp: Date.parse(_at(2)),
    }),
    {
      type: "message",
      id: "b0000004",
      parentId: "b0000003",
      timestamp: _at(3),
      message: {
        role: "toolResult",
        toolCallId: "c1",
        toolName: h,
        content: [{
          type: "text",
          text: `\`\`\`\`\`\n</details>\n${h}\n\`\`\`\`\`\``,
        }],
        isError: true,
      },
    },
    {
      type: "custom_message",
      id: "b0000005",
      parentId: "b0000004",
      timestamp: _at(4),
      customType: h,
      content: h,
      display: true,
    },
    assistant("b0000006", "b0000005", `The end ${h}`, {
      timestamp: Date.parse(_at(5)),
    }),
  ];
  return sessionBytes(entries, {
    title: `T ${h}`.replace("\u0000", ""),
    header: {
      type: "session",
      version: 3,
      id: `01a0f000-0000-7000-8000-0000000000ff`,
      timestamp: T0,
      cwd: `/home/${h}`,
    },
  });
}

/**
 * A linear session of `n` messages, user and assistant in turn, each
 * `message <i> ` followed by about 1 KB of text: enough to fill pages.
 *
 * @param n How many messages.
 */
export function longSession(n: number): Uint8Array {
  const entries: Record<string, unknown>[] = [];
  let parent: string | null = null;
  for (let i = 0; i < n; i++) {
    const id = (0x10000000 + i).toString(16);
    const text = `message ${i} ${"lorem ipsum ".repeat(80)}`;
    entries.push(
      i % 2 === 0
        ? user(id, parent, text)
        : assistant(id, parent, text, { provider: "p", model: "m" }),
    );
    parent = id;
  }
  return sessionBytes(entries);
}
