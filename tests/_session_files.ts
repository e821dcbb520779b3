/** Helpers that build session files for tests. */
import { join } from "node:path";
import { marshalTitleSlot } from "../src/format/title_slot.ts";

export const T0 = "2026-10-01T09:00:00.000Z";

export const HEADER = {
  type: "session",
  version: 3,
  id: "01a0f000-0000-7000-8000-00000000aaaa",
  timestamp: T0,
  cwd: "/home/dev/src/app",
};

const enc = new TextEncoder();

/** A user message entry. */
export function user(
  id: string,
  parentId: string | null,
  text: string,
): Record<string, unknown> {
  return {
    type: "message",
    id,
    parentId,
    timestamp: T0,
    message: { role: "user", content: [{ type: "text", text }] },
  };
}

/** An assistant message entry. */
export function assistant(
  id: string,
  parentId: string | null,
  content: unknown[] | string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    type: "message",
    id,
    parentId,
    timestamp: T0,
    message: {
      role: "assistant",
      content: typeof content === "string"
        ? [{ type: "text", text: content }]
        : content,
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      stopReason: "stop",
      ...extra,
    },
  };
}

/** A tool result entry. */
export function toolResult(
  id: string,
  parentId: string,
  toolCallId: string,
  content: unknown[],
): Record<string, unknown> {
  return {
    type: "message",
    id,
    parentId,
    timestamp: T0,
    message: {
      role: "toolResult",
      toolCallId,
      toolName: "read",
      content,
      isError: false,
    },
  };
}

/** The bytes of a session: a title slot (unless `slot: false`), the header, then each entry (objects are JSON-encoded, strings and byte arrays written as they are), each ending in "\n" unless given as raw bytes. */
export function sessionBytes(
  entries: (Record<string, unknown> | string | Uint8Array)[],
  options: {
    slot?: boolean;
    header?: Record<string, unknown> | string;
    title?: string;
  } = {},
): Uint8Array {
  const parts: Uint8Array[] = [];
  if (options.slot !== false) {
    parts.push(
      marshalTitleSlot({
        title: options.title ?? "A test session",
        source: "auto",
        updatedAt: T0,
      }),
    );
  }
  const header = options.header ?? HEADER;
  parts.push(
    enc.encode(
      `${typeof header === "string" ? header : JSON.stringify(header)}\n`,
    ),
  );
  for (const e of entries) {
    if (e instanceof Uint8Array) parts.push(e);
    else {parts.push(
        enc.encode(`${typeof e === "string" ? e : JSON.stringify(e)}\n`),
      );}
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A stream that hands out `bytes` in chunks of `size`. */
export function chunked(
  bytes: Uint8Array,
  size: number,
): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

/** A temp dir removed when disposed. */
export async function tempDir(): Promise<{ path: string } & AsyncDisposable> {
  const path = await Deno.makeTempDir({ prefix: "xdev-session-test-" });
  return {
    path,
    [Symbol.asyncDispose]: () => Deno.remove(path, { recursive: true }),
  };
}

/**
 * Give every file under a folder a modification time a minute old: older
 * than the index's settle window (`SETTLE_MS`), so that a refresh trusts
 * their stat at once and reads none of them again to check its bytes.
 *
 * @param dir The folder.
 */
export async function backdate(dir: string): Promise<void> {
  const old = new Date(Date.now() - 60_000);
  for await (const e of Deno.readDir(dir)) {
    const path = join(dir, e.name);
    if (e.isDirectory) await backdate(path);
    else if (e.isFile) await Deno.utime(path, old, old);
  }
}
