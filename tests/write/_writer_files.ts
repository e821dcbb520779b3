/** Files, fault doubles and helpers shared by the tests of `src/write/`. */
import { marshalTitleSlot } from "../../src/format/title_slot.ts";
import { type FileHandle, type Fs, realFs } from "../../src/_fs.ts";

export { override } from "../_fs_seam.ts";

export const encoder: TextEncoder = new TextEncoder();
export const decoder: TextDecoder = new TextDecoder();
export const IS_WINDOWS: boolean = Deno.build.os === "windows";
export const CAN_SET_UMASK: boolean =
  (await Deno.permissions.query({ name: "sys" })).state === "granted";

export const AT = "2026-10-01T09:00:00.000Z";
export const HEADER =
  '{"type":"session","version":3,"id":"01a0f000-0000-7000-8000-000000000001","timestamp":"2026-10-01T09:00:00.000Z","cwd":"/tmp"}';
export const MESSAGE =
  '{"type":"message","id":"0a000001","parentId":null,"timestamp":"2026-10-01T09:00:01.000Z","message":{"role":"user","content":"hi","timestamp":1790845201000}}';

/** The new-session slot for {@linkcode AT}. */
export const SLOT: Uint8Array = marshalTitleSlot({ title: "", updatedAt: AT });

/** Slot + header + one message, each line ending in "\n". */
export function body(): Uint8Array {
  return concat(SLOT, encoder.encode(`${HEADER}\n${MESSAGE}\n`));
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** A temp dir for one test, removed afterwards. */
export async function withDir(
  fn: (dir: string) => Promise<void>,
): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "xdev-writer-" });
  try {
    await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** The real filesystem, with every handle opened on `path` wrapped by `wrap`. */
export function wrapping(
  path: string,
  wrap: (file: FileHandle) => FileHandle,
): Fs {
  return {
    ...realFs,
    open: async (p, options) => {
      const file = await realFs.open(p, options);
      return p === path ? wrap(file) : file;
    },
  };
}

export async function names(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const entry of Deno.readDir(dir)) out.push(entry.name);
  return out.sort();
}

export async function mode(path: string): Promise<number> {
  return (await Deno.stat(path)).mode! & 0o777;
}

/** A pid that just exited. */
export async function deadPid(): Promise<number> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", ""],
    stdout: "null",
    stderr: "null",
  }).spawn();
  await child.status;
  return child.pid;
}
