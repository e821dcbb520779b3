/**
 * The session header (line 2) and the in-memory migration of older versions.
 *
 * @module
 */

import {
  marshalTitleSlot,
  type TitleSlot,
  type TitleSource,
} from "./title_slot.ts";

/**
 * The header version this library writes. Older files are migrated in
 * memory on open, and on disk, whole, by their first write (as omp does).
 *
 * @example The version of a new session
 * ```ts
 * import { Session, SESSION_VERSION } from "@xdev/session";
 * import { equal } from "node:assert/strict";
 *
 * const dataDir = await Deno.makeTempDir();
 * try {
 *   await using session = await Session.create({ cwd: "/home/dev/app", dataDir });
 *   equal(session.header.version, SESSION_VERSION);
 * } finally {
 *   await Deno.remove(dataDir, { recursive: true });
 * }
 * ```
 */
export const SESSION_VERSION = 3;

/** Line 2 of a session file. Fields this library does not know are kept. */
export interface SessionHeader {
  /** The discriminator. */
  type: "session";
  /** 3 when written here; 1 and 2 are migrated in memory, and on disk at the first write. */
  version: number;
  /** A UUIDv7. */
  id: string;
  /** ISO-8601 UTC with milliseconds. */
  timestamp: string;
  /** Absolute working directory of the session. */
  cwd: string;
  /** The session this one was forked from (an id) or a subagent's parent (a path). */
  parentSession?: string | null;
  /** May be stale: the title slot is authoritative. */
  title?: string;
  /** May be stale: the title slot is authoritative. */
  titleSource?: string;
  /** Fields this library does not know (`additionalDirectories` …); kept on any rewrite. */
  [key: string]: unknown;
}

/**
 * Check a parsed line 2 (or line 1 of a slot-less file).
 *
 * @example Checking a header
 * ```ts
 * import { asHeader } from "./header.ts";
 * import { deepEqual } from "node:assert/strict";
 * const header = {
 *   type: "session", version: 3, id: "0190a3c4-0000-7000-8000-000000000000",
 *   timestamp: "2026-01-01T00:00:00.000Z", cwd: "/work",
 * };
 * deepEqual(asHeader(header), { header });
 * deepEqual(asHeader({ ...header, version: 0 }), {
 *   reason: "the header's version is not a positive integer",
 * });
 * ```
 *
 * @param value The parsed JSON.
 * @returns The header, or why it is not one (never the line's content).
 */
export function asHeader(
  value: unknown,
): { header: SessionHeader } | { reason: string } {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { reason: "the header is not a JSON object" };
  }
  const v = value as Record<string, unknown>;
  if (v.type !== "session") {
    return { reason: 'the header\'s type is not "session"' };
  }
  if (typeof v.id !== "string" || v.id.length === 0) {
    return { reason: "the header has no id" };
  }
  if (
    v.version !== undefined &&
    !(typeof v.version === "number" && Number.isInteger(v.version) &&
      v.version >= 1)
  ) {
    return { reason: "the header's version is not a positive integer" };
  }
  return { header: v as unknown as SessionHeader };
}

/**
 * The header's version; a header without one is version 1 (pi's first format).
 *
 * @example Reading a legacy header
 * ```ts
 * import { headerVersion, type SessionHeader } from "./header.ts";
 * import { equal } from "node:assert/strict";
 * const header: SessionHeader = {
 *   type: "session", version: 3, id: "0190a3c4-0000-7000-8000-000000000000",
 *   timestamp: "2026-01-01T00:00:00.000Z", cwd: "/work",
 * };
 * equal(headerVersion(header), 3);
 * const { version: _, ...legacy } = header;
 * equal(headerVersion(legacy as SessionHeader), 1);
 * ```
 *
 * @param header A checked header.
 * @returns Its version, or 1 when it has none.
 */
export function headerVersion(header: SessionHeader): number {
  return typeof header.version === "number" ? header.version : 1;
}

/**
 * The title source a header records (it may be stale: the title slot, when
 * there is one, is authoritative), in the API's names: `user` and `manual`
 * read as `manual`.
 *
 * @example A header written by omp's fork
 * ```ts
 * import { headerTitleSource, type SessionHeader } from "./header.ts";
 * import { equal } from "node:assert/strict";
 * const header: SessionHeader = {
 *   type: "session", version: 3, id: "0190a3c4-0000-7000-8000-000000000000",
 *   timestamp: "2026-01-01T00:00:00.000Z", cwd: "/work", titleSource: "user",
 * };
 * equal(headerTitleSource(header), "manual");
 * ```
 *
 * @param header A checked header.
 * @returns The source, or undefined when the header names none this library knows.
 */
export function headerTitleSource(
  header: SessionHeader,
): TitleSource | undefined {
  const s = header.titleSource;
  if (s === "user" || s === "manual") return "manual";
  return s === "auto" || s === "subagent" ? s : undefined;
}

const _encoder = new TextEncoder();

/**
 * Lines 1 and 2 of a session file: the 256-byte slot,
 * then the header as one line of JSON (keys in the record's order), each
 * ending in `"\n"`.
 *
 * @example The head of a new session
 * ```ts
 * import { encodeHead } from "./header.ts";
 * import { equal } from "node:assert/strict";
 *
 * const timestamp = "2026-10-01T09:00:00.000Z";
 * const head = encodeHead({ title: "", updatedAt: timestamp }, {
 *   type: "session", version: 3, id: "0190a3c4-0000-7000-8000-000000000000",
 *   timestamp, cwd: "/work",
 * });
 * const text = new TextDecoder().decode(head);
 * equal(text.indexOf("\n"), 255);
 * equal(text.endsWith('"cwd":"/work"}\n'), true);
 * ```
 *
 * @param slot The title record of line 1.
 * @param header The header record; written as given.
 * @returns The two lines' bytes.
 * @throws {TypeError} When the slot is malformed (see {@linkcode marshalTitleSlot}).
 */
export function encodeHead(
  slot: TitleSlot,
  header: Readonly<Record<string, unknown>>,
): Uint8Array {
  const line1 = marshalTitleSlot(slot);
  const line2 = _encoder.encode(`${JSON.stringify(header)}\n`);
  const out = new Uint8Array(line1.length + line2.length);
  out.set(line1);
  out.set(line2, line1.length);
  return out;
}
