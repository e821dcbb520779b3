/**
 * `Session`: a session file, open for reading and appending, or a new
 * session not yet on disk. A thin facade over the loaded entries
 * (`_view.ts`), the appender (`_appender.ts`) and the rename (`_title.ts`).
 *
 * @module
 */

import type {
  CustomEntry,
  SessionEntry,
  TitleChangeEntry,
} from "../format/entries.ts";
import type { TitleSource } from "../format/title_slot.ts";
import { Appender } from "./_appender.ts";
import {
  createParts,
  openParts,
  type SessionParts,
  streamParts,
} from "./_parts.ts";
import { renameSession } from "./_title.ts";
import type { LoadedSession } from "../read/_records.ts";
import type { ResumeFrom } from "../read/_resume.ts";
import { SessionView } from "./_view.ts";
import type { AppendOptions, EntryPayload } from "./entry_appender.ts";
import type {
  SessionCreateOptions,
  SessionFromStreamOptions,
  SessionOpenOptions,
} from "./options.ts";
import { attachView, SessionReader } from "./session_reader.ts";
import { resolveDataDir } from "../store/data_dir.ts";
import { listSessions } from "../store/list.ts";

/** Makes a session of its parts (set by the class's static block). */
let _fromParts: (parts: SessionParts) => Session;

/**
 * Open a session file resuming from what a session index recorded of it:
 * the walk stops where the record begins (when the file still starts as
 * recorded). For the index, which supplies the record and keeps what the
 * read learned; never exported from `mod.ts`.
 *
 * @returns The session, and what the read learned of the whole file
 * (`loaded.record`, when it saw every line or resumed).
 */
export async function openSessionResumed(
  path: string,
  options: SessionOpenOptions,
  resume: ResumeFrom | undefined,
): Promise<{ session: Session; loaded: LoadedSession }> {
  const parts = await openParts(path, options, { resume });
  return { session: _fromParts(parts), loaded: parts.loaded };
}

/**
 * A session. `Session.open` reads a file (never modifying it) and
 * `Session.create` starts a new one in memory; the `append*` methods add
 * entries (one write per batch, under omp's lock), `setTitle` renames in
 * place, `branch` moves the leaf.
 *
 * @example Create, append, reopen, read
 * ```ts
 * import { Session, SESSION_VERSION } from "@xdev/session";
 * import { deepEqual, equal } from "node:assert/strict";
 *
 * const dataDir = await Deno.makeTempDir();
 * try {
 *   const s = await Session.create({ cwd: "/home/dev/app", dataDir });
 *   await s.appendModelChange("anthropic/claude-sonnet-4-5");
 *   const hi = await s.appendMessage({ role: "user", content: "Hi" });
 *   await s.ensureOnDisk();
 *   await s.setTitle("Say hello");
 *   await s.close();
 *
 *   await using again = await Session.open(s.path!);
 *   equal(again.path, s.path);
 *   equal(again.onDisk, true);
 *   equal(again.header.version, SESSION_VERSION);
 *   deepEqual([again.title, again.titleSource], ["Say hello", "manual"]);
 *   equal(again.titleSlot?.title, "Say hello");
 *   equal(again.getEntry(hi.id)?.type, "message");
 *   equal(again.getEntry("ffffffff"), undefined);
 *   equal(again.leafId, again.entries.at(-1)?.id); // the title_change entry
 *   deepEqual([again.migrated, again.issues], [false, []]);
 *   equal(again.buildContext().messages.length, 1);
 * } finally {
 *   await Deno.remove(dataDir, { recursive: true });
 * }
 * ```
 */
export class Session extends SessionReader implements AsyncDisposable {
  readonly #path: string | undefined;
  readonly #view: SessionView;
  readonly #appender: Appender;

  static {
    _fromParts = (parts) => new Session(parts);
  }

  private constructor(parts: SessionParts) {
    super();
    this.#path = parts.path;
    this.#view = new SessionView(parts.loaded, parts.blobs);
    attachView(this, this.#view);
    this.#appender = new Appender(parts, this.#view);
  }

  /**
   * Open a session file. Opening never modifies the file.
   *
   * @example Opening a file omp wrote
   * ```ts
   * import { Session } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   * const url = new URL("../../fixtures/omp/s1-main.jsonl", import.meta.url);
   * await using session = await Session.open(url.pathname);
   * equal(session.leafId, "5ce1f5f1");
   * equal(session.issues.length, 0);
   * equal(session.buildContext().model, "openai/gpt-5.1-codex");
   * ```
   *
   * @param options Blob resolution, damage reporting, windowing, and how later appends write.
   * @throws {SessionSyntaxError} When the header is missing or malformed.
   * @throws {Deno.errors.NotFound} When the file does not exist.
   */
  static async open(
    path: string,
    options: SessionOpenOptions = {},
  ): Promise<Session> {
    return new Session(await openParts(path, options));
  }

  /**
   * Load a session from a byte stream (a file's `readable`, a network body,
   * a test stream), read whole. It has no path: it cannot be appended to.
   *
   * @example Loading a session from a stream
   * ```ts
   * import { Session } from "@xdev/session";
   * import { deepEqual, equal } from "node:assert/strict";
   * const url = new URL("../../fixtures/omp/s1-main.jsonl", import.meta.url);
   * const file = await Deno.open(url);
   * const session = await Session.fromStream(file.readable, { name: "s1-main" });
   * equal(session.path, undefined);
   * equal(session.buildContext().messages.length, 19);
   *
   * // A version 1 file (pi's) is migrated in memory; a torn last line is
   * // skipped and reported.
   * const v1 = '{"type":"session","id":"x","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}\n' +
   *   '{"type":"message","message":{"role":"user","content":"Hi"}}\n{"type":"mess';
   * const old = await Session.fromStream(ReadableStream.from([new TextEncoder().encode(v1)]));
   * deepEqual([old.migrated, old.entries[0]?.id], [true, "00000001"]);
   * deepEqual(old.issues.map((i) => [i.kind, i.line]), [["torn-line", 3]]);
   * ```
   *
   * @param options A name for errors, the data dir for blobs, damage reporting.
   * @throws {SessionSyntaxError} When the header is missing or malformed.
   */
  static async fromStream(
    stream: ReadableStream<Uint8Array>,
    options: SessionFromStreamOptions = {},
  ): Promise<Session> {
    return new Session(await streamParts(stream, options));
  }

  /**
   * Start a new session in memory. Nothing is written until
   * {@linkcode Session.ensureOnDisk}, or with
   * {@linkcode Session.enableAutoPersist} until the first assistant message:
   * a session that never answers leaves no file.
   *
   * @example Starting a session that is not on disk yet
   * ```ts
   * import { Session } from "@xdev/session";
   * import { deepEqual, equal } from "node:assert/strict";
   * const title = "Fix the flaky test";
   * await using session = await Session.create({ cwd: "/app", dataDir: "/nowhere", title });
   * deepEqual([session.title, session.onDisk, session.header.cwd], [title, false, "/app"]);
   * equal(session.path!.startsWith("/nowhere/sessions/"), true);
   * ```
   *
   * @param options The working directory, and where and how to write.
   * @throws {TypeError} When `cwd` is empty.
   */
  static async create(options: SessionCreateOptions): Promise<Session> {
    return new Session(await createParts(options));
  }

  /**
   * Continue where `cwd` left off (pi's `continueRecent`): open the session
   * of that folder last active (its last entry's time), subagents left out;
   * or, when the folder has none, create one in memory.
   *
   * @example No session yet, then the one just written
   * ```ts
   * import { Session } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   * const dataDir = await Deno.makeTempDir();
   * const first = await Session.continueRecent("/app", { dataDir });
   * equal(first.onDisk, false);
   * await first.appendMessage({ role: "user", content: "Hi" });
   * await first.ensureOnDisk();
   * await first.close();
   * await using again = await Session.continueRecent("/app", { dataDir });
   * equal(again.path, first.path);
   * await Deno.remove(dataDir, { recursive: true });
   * ```
   *
   * @param cwd The working directory whose sessions are looked at.
   * @param options Those of {@linkcode Session.open} and {@linkcode Session.create}.
   */
  static async continueRecent(
    cwd: string,
    options: Omit<SessionCreateOptions, "cwd"> & SessionOpenOptions = {},
  ): Promise<Session> {
    const dataDir = options.dataDir ?? await resolveDataDir();
    const [recent] = await listSessions(dataDir, { cwd, summary: true });
    return recent === undefined
      ? await Session.create({ ...options, cwd, dataDir })
      : await Session.open(recent.path, { ...options, dataDir });
  }

  /** The file's absolute path (also before a new session reaches disk); undefined for a stream. */
  get path(): string | undefined {
    return this.#path;
  }

  /** Whether the session's file exists (written, or opened). */
  get onDisk(): boolean {
    return this.#appender.onDisk;
  }

  /**
   * Write a new session's file now: title slot, header and every entry so
   * far (files 0600, folders 0700). Does nothing when it is on disk.
   *
   * (The class example and {@linkcode Session.continueRecent}'s write one.)
   *
   * @throws {TypeError} For a session read from a stream (it has no path).
   */
  ensureOnDisk(): Promise<void> {
    return this.#appender.exclusive(() => this.#appender.ensureOnDisk());
  }

  /**
   * Write the file at the first assistant message (as omp does); until then
   * the session stays in memory.
   *
   * @example No file until the first answer
   * ```ts
   * import { Session } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   * const dataDir = await Deno.makeTempDir();
   * try {
   *   await using session = await Session.create({ cwd: "/home/dev/app", dataDir });
   *   session.enableAutoPersist();
   *   await session.appendMessage({ role: "user", content: "Hi" });
   *   equal(session.onDisk, false);
   *   await session.appendMessage({ role: "assistant", content: [{ type: "text", text: "Hello" }] });
   *   equal(session.onDisk, true);
   * } finally {
   *   await Deno.remove(dataDir, { recursive: true });
   * }
   * ```
   */
  enableAutoPersist(): void {
    this.#appender.enableAutoPersist();
  }

  /**
   * Append entries in one write (DESIGN §3.10): each payload gets an id, the
   * previous entry (or the leaf) as parent, and a timestamp, envelope first.
   * Large images go to the blob store on the way. A compaction or reset is
   * followed by a settings checkpoint, so the next open stops there. The
   * first write to a version 1 or 2 file migrates it to version 3 first, as
   * omp does: in place, whole or not at all (a temp file renamed over it,
   * under the lock), unknown fields kept, the ids the session holds written.
   *
   * @example A question and its answer in one write
   * ```ts
   * import { Session } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   * await using session = await Session.create({ cwd: "/app", dataDir: "/nowhere" });
   * const [question, answer] = await session.appendBatch([
   *   { type: "message", message: { role: "user", content: "Hi" } },
   *   { type: "message", message: { role: "assistant", content: [{ type: "text", text: "Hello" }] } },
   * ]);
   * equal(answer!.parentId, question!.id);
   * equal(session.leafId, answer!.id);
   * ```
   *
   * @param options The first entry's parent: any entry of the session, or `null`.
   * @throws {RangeError} When `parentId` names no entry (nothing is written).
   * @throws {Error} When the write fails; the session then refuses further
   * writes. When the migration of a version 1 or 2 file fails (the file is
   * then as it was, and the next append tries again), or another writer
   * migrated or replaced the file since the open.
   */
  appendBatch(
    payloads: readonly EntryPayload[],
    options: AppendOptions = {},
  ): Promise<SessionEntry[]> {
    const appender = this.#appender;
    return appender.exclusive(() => appender.append(payloads, options));
  }

  /**
   * Rename the session (DESIGN §3.3), whole or not at all: a `title_change`
   * entry and the title slot under one lock (in place for a 256-byte slot,
   * else one atomic rewrite of the file holding both).
   *
   * @example Renaming a session (the class example renames one on disk)
   * ```ts
   * import { Session } from "@xdev/session";
   * import { deepEqual } from "node:assert/strict";
   * await using session = await Session.create({ cwd: "/app", dataDir: "/nowhere" });
   * const entry = await session.setTitle("Fix the\tflaky test");
   * deepEqual([entry.title, entry.source], ["Fix the flaky test", "user"]);
   * deepEqual([session.title, session.titleSource], [entry.title, "manual"]);
   * ```
   *
   * @param title The new title (cleaned; cut to fit the slot, the entry keeps it whole).
   * @param source Who set it. Default `manual`.
   * @throws {TypeError} When the title is empty once cleaned.
   * @throws {Error} When a step fails: nothing of the rename stays.
   */
  setTitle(
    title: string,
    source: TitleSource = "manual",
  ): Promise<TitleChangeEntry> {
    const appender = this.#appender;
    return appender.exclusive(() =>
      renameSession(appender, this.#view, title, source)
    );
  }

  /**
   * Move the leaf to `entryId` (DESIGN §3.6): write a branch marker (`custom`,
   * `customType: "branch"`, `data.to`) whose parent is `entryId`, so omp,
   * which follows the last line's parent, sees the same branch. The next
   * entry is appended under `entryId`.
   *
   * @example Going back to an earlier entry
   * ```ts
   * import { Session } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   * await using session = await Session.create({ cwd: "/app", dataDir: "/nowhere" });
   * const first = await session.appendMessage({ role: "user", content: "Plan A" });
   * await session.appendMessage({ role: "user", content: "Plan A, step 2" });
   * const marker = await session.branch(first.id);
   * equal(marker.customType, "branch");
   * equal(session.leafId, first.id);
   * equal(session.buildContext().messages.length, 1);
   * ```
   *
   * @throws {RangeError} When no entry has that id.
   */
  branch(entryId: string): Promise<CustomEntry> {
    const appender = this.#appender;
    return appender.exclusive(() => appender.branch(entryId));
  }

  /** Whether {@linkcode Session.close} was called. */
  get closed(): boolean {
    return this.#appender.closed;
  }

  /**
   * Release the file handle. Reading after close still works; writing does
   * not. `await using` closes the session at the end of its block.
   *
   * @example Reading still works after close, appending does not
   * ```ts
   * import { Session } from "@xdev/session";
   * import { deepEqual, equal, rejects } from "node:assert/strict";
   * const session = await Session.create({ cwd: "/app", dataDir: "/nowhere" });
   * await session.appendMessage({ role: "user", content: "Hi" });
   * await session.close();
   * deepEqual([session.closed, session.buildContext().messages.length], [true, 1]);
   * await rejects(session.appendResetBoundary(), /the session is closed/);
   * let outer: Session;
   * {
   *   await using scoped = await Session.create({ cwd: "/app", dataDir: "/nowhere" });
   *   outer = scoped;
   * }
   * equal(outer.closed, true);
   * ```
   */
  close(): Promise<void> {
    return this.#appender.close();
  }

  /** Same as {@linkcode Session.close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}
