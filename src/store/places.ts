/**
 * Where sessions live in a data dir: the sessions root, the per-cwd folder
 * and the file name.
 *
 * @module
 */

import { join } from "node:path";
import { cwdSlug, type CwdSlugOptions } from "./cwd_slug.ts";

/**
 * `<dataDir>/sessions`, the root of all session folders.
 *
 * @example The sessions root
 * ```ts
 * import { sessionsDir } from "@xdev/session";
 * import { equal } from "node:assert/strict";
 *
 * equal(sessionsDir("/data"), "/data/sessions");
 * ```
 *
 * @param dataDir The data dir, as {@linkcode resolveDataDir} returns it.
 * @returns The sessions root.
 */
export function sessionsDir(dataDir: string): string {
  return join(dataDir, "sessions");
}

/**
 * `<dataDir>/sessions/<cwd slug>`: the folder that holds the sessions started
 * in `cwd` (see {@linkcode cwdSlug}; symbolic links in `cwd` are not resolved).
 *
 * @example The folder for a project's sessions
 * ```ts
 * import { sessionDirFor } from "@xdev/session";
 * import { equal } from "node:assert/strict";
 *
 * const dir = sessionDirFor("/data", "/home/ann/src/app", { home: "/home/ann" });
 * equal(dir, "/data/sessions/-src-app");
 * ```
 *
 * @param dataDir The data dir.
 * @param cwd An absolute working directory.
 * @param options HOME and the temp dir, injectable for tests.
 * @returns The folder path.
 * @throws {TypeError} When `cwd` is not absolute.
 */
export function sessionDirFor(
  dataDir: string,
  cwd: string,
  options: CwdSlugOptions = {},
): string {
  return join(sessionsDir(dataDir), cwdSlug(cwd, options));
}

const _ISO_UTC =
  /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?Z$/;
const _UUID =
  /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const _FILE_NAME =
  /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})(?:-(\d{1,9}))?Z_([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})\.jsonl$/;

/** A session file name taken apart by {@linkcode parseSessionFileName}. */
export interface SessionFileName {
  /** The header timestamp, ISO-8601 UTC (`2026-09-28T10:00:00.000Z`). */
  timestamp: string;
  /** The session id (a UUID). */
  id: string;
}

/**
 * The file name of a session: `<timestamp>_<id>.jsonl`, with every `:` and
 * `.` of the timestamp turned into `-` (`2026-09-28T10-00-00-000Z_<id>.jsonl`).
 *
 * @example Naming a session file
 * ```ts
 * import { sessionFileName } from "@xdev/session";
 * import { equal } from "node:assert/strict";
 *
 * const id = "01a0e775-0100-7eee-9510-1c122060007d";
 * const name = sessionFileName("2026-09-28T10:00:00.000Z", id);
 * equal(name, `2026-09-28T10-00-00-000Z_${id}.jsonl`);
 * ```
 *
 * @param timestamp The header timestamp, ISO-8601 UTC ending in `Z`.
 * @param id The session id, a UUID.
 * @returns The file name (no folder).
 * @throws {TypeError} When the timestamp or the id has another shape.
 */
export function sessionFileName(timestamp: string, id: string): string {
  if (!_ISO_UTC.test(timestamp)) {
    throw new TypeError(
      `Cannot name a session file: "${timestamp}" is not an ISO-8601 UTC timestamp`,
    );
  }
  if (!_UUID.test(id)) {
    throw new TypeError(`Cannot name a session file: "${id}" is not a UUID`);
  }
  return `${timestamp.replace(/[:.]/g, "-")}_${id}.jsonl`;
}

/**
 * The timestamp and id in a session file name, or undefined when the name has
 * any other shape. Only digits, hex, `-`, `T`, `Z`, `_` and `.jsonl` pass, so
 * a name read from disk never yields a separator or `..`.
 *
 * @example Reading a name found on disk
 * ```ts
 * import { parseSessionFileName } from "@xdev/session";
 * import { equal } from "node:assert/strict";
 *
 * const parsed = parseSessionFileName(
 *   "2026-09-28T10-00-00-000Z_01a0e775-0100-7eee-9510-1c122060007d.jsonl",
 * );
 * equal(parsed?.timestamp, "2026-09-28T10:00:00.000Z");
 * equal(parseSessionFileName("../x.jsonl"), undefined);
 * ```
 *
 * @param name A file name (no folder).
 * @returns The parts, or undefined.
 */
export function parseSessionFileName(
  name: string,
): SessionFileName | undefined {
  const m = _FILE_NAME.exec(name);
  if (m === null) return undefined;
  const [, date, h, min, s, frac, id] = m;
  const fraction = frac === undefined ? "" : `.${frac}`;
  return {
    timestamp: `${date}T${h}:${min}:${s}${fraction}Z`,
    id: id as string,
  };
}
