/**
 * A version 1 or 2 session file migrated to version 3 on disk, as omp
 * migrates one at its first write: what the reader does to each record in
 * memory (`format/_migrate.ts`) is written back, so the file holds what
 * every open of it already read. The content is written into the temp file
 * of a whole replacement (`SessionWriter.rewrite`): the file changes all at
 * once or not at all.
 *
 * What changes: a title slot is put first when the file has none (the
 * header's title, `updatedAt` the header's time, as omp writes it); the
 * header says `version: 3`; each record the migration changes (every entry
 * of a version 1 file gets its id and parent, a version 2 `hookMessage`
 * becomes `custom`) is written as `JSON.stringify` of the migrated record,
 * its fields in their order, unknown ones kept. Everything else is copied
 * byte for byte: the records the migration leaves alone and every line the
 * reader reads around (damage stays damage, and is skipped as before). A
 * line of two values glued together keeps its second value after the
 * migrated first.
 *
 * @module
 */

import type { FileHandle } from "../_fs.ts";
import {
  headerTitleSource,
  headerVersion,
  SESSION_VERSION,
  type SessionHeader,
} from "../format/header.ts";
import { recordMigrator } from "../format/_migrate.ts";
import { marshalTitleSlot, type TitleSlot } from "../format/title_slot.ts";
import { decodeEntry, IssueLog } from "../read/_decode.ts";
import { HEAD_LINE_MAX_BYTES, HeadReader } from "../read/_head.ts";
import { firstValueEnd } from "../read/_json_prefix.ts";
import { type Line, readLines } from "../read/lines.ts";
import { writeAll } from "../write/_files.ts";

/** What the migrated file starts with, for the session to hold. */
export interface MigratedHead {
  /** The header written (version 3). */
  header: SessionHeader;
  /** The title slot put first, when the file had no line 1 before its header. */
  slot: TitleSlot | undefined;
}

/** How {@linkcode migrateInto} reads the old file. */
export interface MigrateOptions {
  /** The file's path, for errors. */
  name: string;
  /** The id the header must still have (the session opened). */
  sessionId: string;
  /** The version the session opened had, which the file must still have. */
  version: number;
  /** The reader's line limit when the session was opened: the same lines are records. */
  maxLineBytes: number;
}

/** Bytes gathered before a write to the temp file. */
const _OUT_BUFFER_BYTES = 1 << 20;
const _encoder = new TextEncoder();
const _NEWLINE = new Uint8Array([0x0a]);

/**
 * Write the version 3 form of the version 1 or 2 file `source` (`size`
 * bytes) into `out`.
 *
 * @example Migrating a version 1 file of one message
 * ```ts
 * import { fs } from "../_fs.ts";
 * import { migrateInto } from "./_migrate_file.ts";
 * import { equal } from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * try {
 *   const header = '{"type":"session","id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}';
 *   await Deno.writeTextFile(`${dir}/v1.jsonl`, `${header}\n{"type":"message","message":{"role":"user","content":"Hi"}}\n`);
 *   {
 *     await using source = await fs().open(`${dir}/v1.jsonl`, { read: true });
 *     await using out = await fs().open(`${dir}/v3.jsonl`, { write: true, createNew: true });
 *     const size = (await source.stat()).size;
 *     const head = await migrateInto(source, size, out, {
 *       name: "v1.jsonl", sessionId: "s", version: 1, maxLineBytes: 1 << 20,
 *     });
 *     equal(head.header.version, 3);
 *   }
 *   const lines = (await Deno.readTextFile(`${dir}/v3.jsonl`)).split("\n");
 *   equal(lines[0]!.length, 255); // a title slot first
 *   equal(JSON.parse(lines[2]!).id, "00000001");
 * } finally {
 *   await Deno.remove(dir, { recursive: true });
 * }
 * ```
 *
 * @param source The old file.
 * @param size Its size, under the writer's lock.
 * @param out The temp file, written from its start.
 * @param options The name, the session's id and the line limit.
 * @returns The head written.
 * @throws {Error} When the file is no longer the version 1 or 2 file of
 * the session opened (another writer migrated or replaced it).
 * @throws {SessionSyntaxError} When its header is missing or malformed.
 */
export async function migrateInto(
  source: FileHandle,
  size: number,
  out: FileHandle,
  options: MigrateOptions,
): Promise<MigratedHead> {
  const writer = new _Output(source, out);
  const log = new IssueLog(); // the damage was reported when the file was read
  const head = new HeadReader(options.name, log);
  let migrate: ReturnType<typeof recordMigrator>;
  let written: MigratedHead | undefined;
  let record = 1;
  let seen = 0;
  for await (
    const line of readLines(source, {
      end: size,
      maxLineBytes: options.maxLineBytes,
      maxFirstLineBytes: HEAD_LINE_MAX_BYTES,
    })
  ) {
    seen++;
    if (written === undefined) {
      if (!head.take(line)) continue; // line 1 (a slot, damage): kept as is
      written = _head(head, options);
      migrate = recordMigrator(headerVersion(head.head!.header));
      await writer.replace(line, _headBytes(written));
      continue;
    }
    const issues = log.issues.length;
    let changed = false;
    const entry = decodeEntry(line, log, (value) => {
      changed = migrate!({ index: record++, value });
    });
    if (entry === undefined || !changed) continue; // copied as is
    const kinds = log.issues.slice(issues).map((i) => i.kind);
    let bytes: Uint8Array = _encoder.encode(JSON.stringify(entry));
    if (kinds.includes("glued-line") && line.bytes !== undefined) {
      const rest = line.bytes.subarray(firstValueEnd(line.bytes));
      bytes = _concat(bytes, rest);
    }
    await writer.replace(line, _concat(bytes, _NEWLINE));
  }
  head.finish(seen, size);
  await writer.end(size);
  return written!;
}

/** The migrated head: the header at version 3, and a slot when there is none. */
function _head(head: HeadReader, options: MigrateOptions): MigratedHead {
  const { header, lines } = head.head!;
  const version = headerVersion(header);
  if (version !== options.version || header.id !== options.sessionId) {
    throw new Error(
      `the file is no longer the version ${options.version} session that was opened (another writer migrated or replaced it); open it again`,
    );
  }
  const migrated = { ...header, version: SESSION_VERSION };
  if (lines !== 1) return { header: migrated, slot: undefined };
  const source = headerTitleSource(header);
  const slot: TitleSlot = {
    title: typeof header.title === "string" ? header.title : "",
    ...(source === undefined ? {} : { source }),
    updatedAt: typeof header.timestamp === "string"
      ? header.timestamp
      : new Date().toISOString(),
  };
  return { header: migrated, slot };
}

function _headBytes({ header, slot }: MigratedHead): Uint8Array {
  const line = _encoder.encode(`${JSON.stringify(header)}\n`);
  return slot === undefined ? line : _concat(marshalTitleSlot(slot), line);
}

function _concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/**
 * The temp file's content, in order: ranges of the old file copied as they
 * are, and the lines that replace others.
 */
class _Output {
  readonly #source: FileHandle;
  readonly #out: FileHandle;
  /** Where the old bytes not yet copied start. */
  #copyFrom = 0;
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;

  constructor(source: FileHandle, out: FileHandle) {
    this.#source = source;
    this.#out = out;
  }

  /** Copy what precedes `line`, then write `bytes` in its place. */
  async replace(line: Line, bytes: Uint8Array): Promise<void> {
    await this.#copyTo(line.offset);
    this.#copyFrom = line.offset + line.size;
    await this.#push(bytes);
  }

  /** Copy the rest of the old file, up to `size`, and flush. */
  async end(size: number): Promise<void> {
    await this.#copyTo(size);
    await this.#flush();
  }

  async #copyTo(end: number): Promise<void> {
    while (this.#copyFrom < end) {
      const chunk = new Uint8Array(
        Math.min(_OUT_BUFFER_BYTES, end - this.#copyFrom),
      );
      const n = await this.#source.read(chunk, this.#copyFrom);
      if (n === 0) {
        throw new Error(
          `the file ended at byte ${this.#copyFrom} during the copy, before byte ${end}`,
        );
      }
      this.#copyFrom += n;
      await this.#push(chunk.subarray(0, n));
    }
  }

  async #push(bytes: Uint8Array): Promise<void> {
    this.#pending.push(bytes);
    this.#pendingBytes += bytes.length;
    if (this.#pendingBytes >= _OUT_BUFFER_BYTES) await this.#flush();
  }

  async #flush(): Promise<void> {
    if (this.#pendingBytes === 0) return;
    const all = new Uint8Array(this.#pendingBytes);
    let at = 0;
    for (const b of this.#pending) {
      all.set(b, at);
      at += b.length;
    }
    this.#pending = [];
    this.#pendingBytes = 0;
    await writeAll(this.#out, all);
  }
}
