/**
 * `Session`: a session file, open for reading and appending, or a new
 * session not yet on disk.
 *
 * @module
 */

import { join, resolve } from "node:path";
import { BlobStore } from "../store/blob_store.ts";
import {
  buildSessionContext,
  collectLabels,
  foldSettings,
  type ResetRule,
  type SessionContext,
} from "../context/context.ts";
import {
  type AgentMessage,
  BRANCH_MARKER_TYPE,
  branchMarkerTarget,
  type BranchSummaryEntry,
  type CompactionEntry,
  type ContentBlock,
  type CredentialPinEntry,
  type CustomEntry,
  type CustomMessageEntry,
  encodeEntry,
  type LabelEntry,
  type MessageEntry,
  type ModeChangeEntry,
  type ModelChangeEntry,
  type ModelUsageEntry,
  newEntryId,
  type ResetBoundaryEntry,
  type ServiceTierChangeEntry,
  type SessionEntry,
  type SessionInitEntry,
  type ThinkingLevelChangeEntry,
  type TitleChangeEntry,
  type TtsrInjectionEntry,
} from "../format/entries.ts";
import {
  headerVersion,
  SESSION_VERSION,
  type SessionHeader,
} from "../format/header.ts";
import { readLines, readLinesFromReader } from "../read/lines.ts";
import type { LoadedSession } from "../read/_records.ts";
import type { LoadIssue } from "../format/issues.ts";
import { findDataDir, readSessionFile, readSessionLines } from "./_open.ts";
import { prepareForDisk, type ResolvedBlobs } from "./_persist.ts";
import {
  canonicalCwdSlug,
  resolveDataDir,
  sessionFileName,
  sessionsDir,
  uuidv7,
} from "../store/places.ts";
import {
  cleanTitle,
  marshalTitleSlot,
  type TitleSlot,
  type TitleSource,
} from "../format/title_slot.ts";
import { pathTo, resolveLeaf } from "../context/tree.ts";
import {
  scanEntryIds,
  SETTINGS_CHECKPOINT_TYPE,
  type SettingsCheckpoint,
} from "../read/_window.ts";
import { rewriteWithSlot, SessionWriter } from "../write/writer.ts";

export { findDataDir } from "./_open.ts";

/** How a session writes (for {@linkcode Session.open} and {@linkcode Session.create}). */
export interface SessionWriteOptions {
  /** `syncData` after every append and title rewrite. Default false. */
  sync?: boolean;
  /** How long to wait for another writer's lock, ms. Default 500 (omp's). */
  lockTimeoutMs?: number;
  /**
   * Tool-result text blocks longer than this many characters are stored as
   * blobs. Off by default: omp does not resolve text blobs.
   */
  textBlobThreshold?: number;
  /** The clock for timestamps (tests). Default `() => new Date()`. */
  now?: () => Date;
}

/** Options for {@linkcode Session.open}. */
export interface SessionOpenOptions extends SessionWriteOptions {
  /**
   * The data dir whose `blobs/` holds the blobs the session references.
   * Default: the nearest ancestor of the file that holds a `blobs/` folder.
   */
  dataDir?: string;
  /** Resolve blob references when the context is built. Default true. */
  resolveBlobs?: boolean;
  /** Called with each piece of damage as the loader reads around it. */
  onIssue?: (issue: LoadIssue) => void;
  /**
   * Keep only the window (default true): the file is read backwards from
   * the end and only the active path back to the governing reset or
   * compaction window is parsed and kept. False reads and keeps every line.
   */
  window?: boolean;
  /**
   * Let a settings checkpoint end the backward walk (default true): the
   * open then costs the window alone, and `activePath` starts at the
   * checkpoint. False walks back to the root (reading, not keeping, the
   * rest of the file) for a complete `activePath`.
   */
  checkpoints?: boolean;
}

/** Options for {@linkcode Session.fromStream}. */
export interface SessionFromStreamOptions {
  /** A name for the stream in errors and issues. Default `"<stream>"`. */
  name?: string;
  /** The data dir whose `blobs/` holds the referenced blobs; none by default. */
  dataDir?: string;
  /** Resolve blob references. Default true (when a data dir is given). */
  resolveBlobs?: boolean;
  /** Called with each piece of damage as the loader reads around it. */
  onIssue?: (issue: LoadIssue) => void;
}

/** Options for {@linkcode Session.create}. */
export interface SessionCreateOptions extends SessionWriteOptions {
  /** The working directory the session belongs to (made absolute). */
  cwd: string;
  /** The data dir. Default: `resolveDataDir()` (`XDEV_DATA_DIR`, the config, `~/.xdev/agent`). */
  dataDir?: string;
  /** The file. Default: `<dataDir>/sessions/<cwd slug>/<timestamp>_<id>.jsonl`. */
  path?: string;
  /** The session id. Default: a new UUIDv7. */
  id?: string;
  /** The session this one was forked from (an id), or a subagent's parent (a path). */
  parentSession?: string;
  /** A first title. */
  title?: string;
  /** Who set it; `subagent` marks a child session that is never resumed. */
  titleSource?: TitleSource;
  /** More header fields, kept as given. */
  header?: Record<string, unknown>;
}

/** Options for {@linkcode Session.buildContext}. */
export interface SessionBuildContextOptions {
  /** Another leaf than the session's. */
  leafId?: string | null;
  /** How a compaction reaching back past a reset is settled; default `xdev`. */
  resetRule?: ResetRule;
}

/** What the loader kept and looked at. */
export interface WindowStats {
  /** Entries kept in memory. */
  retained: number;
  /** Lines the loader looked at (the title slot and header included). */
  seen: number;
  /** Whether the loader skipped part of the file (the windowed path). */
  windowed: boolean;
  /** Bytes read from the file or stream. */
  bytesRead: number;
}

/** A new entry: its type and payload, without the envelope. */
export type EntryPayload = { type: string } & Record<string, unknown>;

/** Options for an append. */
export interface AppendOptions {
  /** The parent of the (first) new entry. Default: the leaf. */
  parentId?: string | null;
}

const _ENVELOPE_KEYS = new Set(["type", "id", "parentId", "timestamp"]);
const _HEADER_KEYS = new Set([
  "type",
  "version",
  "id",
  "timestamp",
  "cwd",
  "parentSession",
]);

/**
 * A session. `Session.open` reads a file (never modifying it) and
 * `Session.create` starts a new one in memory; the `append*` methods add
 * entries (one write per batch, under omp's lock), `setTitle` renames in
 * place, `branch` moves the leaf.
 *
 * @example Create, append, reopen
 * ```ts
 * import { Session } from "@xdev/session";
 * import { equal } from "node:assert/strict";
 *
 * const dataDir = await Deno.makeTempDir();
 * const s = await Session.create({ cwd: "/home/dev/app", dataDir });
 * await s.appendModelChange("anthropic/claude-sonnet-4-5");
 * await s.appendMessage({ role: "user", content: [{ type: "text", text: "Hi" }] });
 * await s.ensureOnDisk();
 * await s.close();
 * await using again = await Session.open(s.path!);
 * equal(again.buildContext().messages.length, 1);
 * await Deno.remove(dataDir, { recursive: true });
 * ```
 */
export class Session implements AsyncDisposable {
  readonly #path: string | undefined;
  readonly #dataDir: string | undefined;
  readonly #options: SessionWriteOptions;
  #loaded: LoadedSession;
  #leafId: string | null;
  #blobs: ResolvedBlobs;
  /** Entries appended since the file was read: their labels go on top of the window's. */
  #appendedFrom: number;
  #onDisk: boolean;
  #autoPersist = false;
  #writer: SessionWriter | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  /** Ids of every entry in the file (read once when needed, then kept up to date by appends). */
  #outsideIds: Set<string> | undefined;
  #closed = false;

  private constructor(
    path: string | undefined,
    dataDir: string | undefined,
    loaded: LoadedSession,
    blobs: ResolvedBlobs,
    onDisk: boolean,
    options: SessionWriteOptions,
  ) {
    this.#path = path;
    this.#dataDir = dataDir;
    this.#loaded = loaded;
    this.#blobs = blobs;
    this.#onDisk = onDisk;
    this.#options = options;
    this.#appendedFrom = loaded.entries.length;
    this.#leafId = loaded.leafId !== undefined
      ? loaded.leafId
      : resolveLeaf(loaded.entries, loaded.byId);
  }

  /**
   * Open a session file. Opening never modifies the file.
   *
   * @example Opening a file omp wrote
   * ```ts
   * import { Session } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   *
   * const url = new URL("../../fixtures/omp/s1-main.jsonl", import.meta.url);
   * await using session = await Session.open(url.pathname);
   * equal(session.leafId, "5ce1f5f1");
   * equal(session.issues.length, 0);
   * equal(session.buildContext().model, "openai/gpt-5.1-codex");
   * ```
   *
   * @param path The `.jsonl` file.
   * @param options Blob resolution, damage reporting, windowing, and how later appends write.
   * @returns The open session.
   * @throws {SessionSyntaxError} When the header is missing or malformed.
   * @throws {Deno.errors.NotFound} When the file does not exist.
   */
  static async open(
    path: string,
    options: SessionOpenOptions = {},
  ): Promise<Session> {
    const dataDir = options.dataDir ?? await findDataDir(path);
    const { loaded, blobs } = await readSessionFile(path, {
      dataDir,
      resolveBlobs: options.resolveBlobs !== false,
      onIssue: options.onIssue,
      window: options.window !== false,
      checkpoints: options.checkpoints !== false,
    });
    return new Session(resolve(path), dataDir, loaded, blobs, true, options);
  }

  /**
   * Load a session from a byte stream (a file's `readable`, a network body,
   * a test stream), read whole. It has no path: it cannot be appended to.
   *
   * @example Loading a session from a stream
   * ```ts
   * import { Session } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   *
   * const url = new URL("../../fixtures/omp/s1-main.jsonl", import.meta.url);
   * const file = await Deno.open(url);
   * const session = await Session.fromStream(file.readable, { name: "s1-main" });
   * equal(session.path, undefined);
   * equal(session.buildContext().messages.length, 19);
   * ```
   *
   * @param stream The bytes of a session file.
   * @param options A name for errors, the data dir for blobs, damage reporting.
   * @returns The session.
   * @throws {SessionSyntaxError} When the header is missing or malformed.
   */
  static async fromStream(
    stream: ReadableStream<Uint8Array>,
    options: SessionFromStreamOptions = {},
  ): Promise<Session> {
    const { loaded, blobs } = await readSessionLines(
      readLines(stream),
      options.name ?? "<stream>",
      {
        dataDir: options.dataDir,
        resolveBlobs: options.resolveBlobs !== false,
        onIssue: options.onIssue,
        window: false,
      },
    );
    return new Session(undefined, options.dataDir, loaded, blobs, false, {});
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
   *
   * const dataDir = await Deno.makeTempDir();
   * try {
   *   await using session = await Session.create({
   *     cwd: "/home/dev/app",
   *     dataDir,
   *     title: "Fix the flaky test",
   *   });
   *   equal(session.title, "Fix the flaky test");
   *   equal(session.onDisk, false);
   *   equal(session.header.cwd, "/home/dev/app");
   *   deepEqual(session.entries, []);
   * } finally {
   *   await Deno.remove(dataDir, { recursive: true });
   * }
   * ```
   *
   * @param options The working directory, and where and how to write.
   * @returns The new session.
   * @throws {TypeError} When `cwd` is empty.
   */
  static async create(options: SessionCreateOptions): Promise<Session> {
    if (typeof options.cwd !== "string" || options.cwd.length === 0) {
      throw new TypeError("Cannot create a session: cwd is empty");
    }
    const now = options.now ?? (() => new Date());
    const timestamp = now().toISOString();
    const id = options.id ?? uuidv7();
    const cwd = resolve(options.cwd);
    const dataDir = options.dataDir ?? await resolveDataDir();
    const path = options.path !== undefined ? resolve(options.path) : join(
      sessionsDir(dataDir),
      await canonicalCwdSlug(cwd),
      sessionFileName(timestamp, id),
    );
    const header: SessionHeader = {
      type: "session",
      version: SESSION_VERSION,
      id,
      timestamp,
      cwd,
      ...(options.parentSession === undefined
        ? {}
        : { parentSession: options.parentSession }),
      // Extra fields come last in the line but never replace the ones above.
      ...Object.fromEntries(
        Object.entries(options.header ?? {}).filter(([k]) =>
          !_HEADER_KEYS.has(k)
        ),
      ),
    };
    const title = options.title === undefined ? "" : cleanTitle(options.title);
    const slot: TitleSlot = {
      title,
      updatedAt: timestamp,
      ...(options.titleSource === undefined
        ? {}
        : { source: options.titleSource }),
    };
    const loaded: LoadedSession = {
      slot,
      slotState: "ok",
      header,
      entries: [],
      byId: new Map(),
      issues: [],
      migrated: false,
      seen: 0,
      bytes: 0,
      windowed: false,
    };
    const blobs = {
      images: new Map<string, string>(),
      texts: new Map<string, string>(),
    };
    return new Session(path, dataDir, loaded, blobs, false, options);
  }

  /**
   * The file's absolute path (also before a new session reaches disk); undefined for a stream.
   *
   * @example Where a new session will be written
   * ```ts
   * import { Session, sessionsDir } from "@xdev/session";
   * import { ok } from "node:assert/strict";
   *
   * const dataDir = await Deno.makeTempDir();
   * try {
   *   await using session = await Session.create({ cwd: "/home/dev/app", dataDir });
   *   ok(session.path!.startsWith(sessionsDir(dataDir)));
   *   ok(session.path!.endsWith(`_${session.header.id}.jsonl`));
   * } finally {
   *   await Deno.remove(dataDir, { recursive: true });
   * }
   * ```
   */
  get path(): string | undefined {
    return this.#path;
  }

  /**
   * Whether the session's file exists (written, or opened).
   *
   * @example Writing a new session's file
   * ```ts
   * import { Session } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   *
   * const dataDir = await Deno.makeTempDir();
   * try {
   *   await using session = await Session.create({ cwd: "/home/dev/app", dataDir });
   *   equal(session.onDisk, false);
   *   await session.ensureOnDisk();
   *   equal(session.onDisk, true);
   * } finally {
   *   await Deno.remove(dataDir, { recursive: true });
   * }
   * ```
   */
  get onDisk(): boolean {
    return this.#onDisk;
  }

  /**
   * The header as on disk (unknown fields kept; older versions not rewritten).
   *
   * @example Reading the header of a fixture
   * ```ts
   * import { Session } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   *
   * const url = new URL("../../fixtures/omp/s1-main.jsonl", import.meta.url);
   * await using session = await Session.open(url.pathname);
   * equal(session.header.version, 3);
   * equal(session.header.id, "01a0e775-0100-7eee-9510-1c122060007d");
   * ```
   */
  get header(): SessionHeader {
    return this.#loaded.header;
  }

  /**
   * The title slot, when line 1 holds a valid one.
   *
   * @example Reading line 1 of a fixture
   * ```ts
   * import { Session } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   *
   * const url = new URL("../../fixtures/omp/s1-main.jsonl", import.meta.url);
   * await using session = await Session.open(url.pathname);
   * equal(session.titleSlot?.source, "manual"); // omp writes "user"
   * equal(session.titleSlot?.updatedAt, "2026-09-28T10:05:06.082Z");
   * ```
   */
  get titleSlot(): TitleSlot | undefined {
    return this.#loaded.slot;
  }

  /**
   * The title: the slot's when there is a slot (an empty slot title means
   * none), else the header's.
   *
   * @example Naming a session before it reaches disk
   * ```ts
   * import { Session } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   *
   * const dataDir = await Deno.makeTempDir();
   * try {
   *   await using session = await Session.create({ cwd: "/home/dev/app", dataDir });
   *   equal(session.title, undefined);
   *   await session.setTitle("Fix the flaky test");
   *   equal(session.title, "Fix the flaky test");
   * } finally {
   *   await Deno.remove(dataDir, { recursive: true });
   * }
   * ```
   */
  get title(): string | undefined {
    const slot = this.#loaded.slot;
    if (slot !== undefined) {
      return slot.title.length > 0 ? slot.title : undefined;
    }
    const t = this.#loaded.header.title;
    return typeof t === "string" && t.length > 0 ? t : undefined;
  }

  /**
   * Who set the title, from the slot (else the header).
   *
   * @example Who named the session
   * ```ts
   * import { Session } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   *
   * const dataDir = await Deno.makeTempDir();
   * try {
   *   await using session = await Session.create({ cwd: "/home/dev/app", dataDir });
   *   equal(session.titleSource, undefined);
   *   await session.setTitle("Fix the flaky test", "auto");
   *   equal(session.titleSource, "auto");
   * } finally {
   *   await Deno.remove(dataDir, { recursive: true });
   * }
   * ```
   */
  get titleSource(): TitleSource | undefined {
    const slot = this.#loaded.slot;
    if (slot !== undefined) return slot.source;
    const s = this.#loaded.header.titleSource;
    if (s === "user" || s === "manual") return "manual";
    return s === "auto" || s === "subagent" ? s : undefined;
  }

  /**
   * The active leaf (DESIGN §3.6), or null for a session without entries.
   *
   * @example The leaf follows each append
   * ```ts
   * import { Session } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   *
   * const dataDir = await Deno.makeTempDir();
   * try {
   *   await using session = await Session.create({ cwd: "/home/dev/app", dataDir });
   *   equal(session.leafId, null);
   *   const entry = await session.appendMessage({ role: "user", content: "Hi" });
   *   equal(session.leafId, entry.id);
   * } finally {
   *   await Deno.remove(dataDir, { recursive: true });
   * }
   * ```
   */
  get leafId(): string | null {
    return this.#leafId;
  }

  /**
   * Whether the file was version 1 or 2 and migrated in memory.
   *
   * @example Reading a version 1 file
   * ```ts
   * import { Session } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   *
   * const text = '{"type":"session","id":"x","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/work"}\n' +
   *   '{"type":"message","message":{"role":"user","content":"Hi"}}\n';
   * const bytes = new TextEncoder().encode(text);
   * const session = await Session.fromStream(ReadableStream.from([bytes]));
   * equal(session.migrated, true);
   * equal(session.entries[0]?.id, "00000001");
   * ```
   */
  get migrated(): boolean {
    return this.#loaded.migrated;
  }

  /**
   * Damage the loader read around, in file order.
   *
   * @example A torn last line is skipped and reported
   * ```ts
   * import { Session } from "@xdev/session";
   * import { deepEqual } from "node:assert/strict";
   *
   * const text = '{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/work"}\n' +
   *   '{"type":"message","id":"a1b2c3d4","parentId":null,"timest';
   * const bytes = new TextEncoder().encode(text);
   * const session = await Session.fromStream(ReadableStream.from([bytes]));
   * deepEqual(session.issues.map((i) => [i.kind, i.line]), [["torn-line", 2]]);
   * deepEqual(session.entries, []);
   * ```
   */
  get issues(): readonly LoadIssue[] {
    return this.#loaded.issues;
  }

  /**
   * The entries in memory (the window, then what was appended), in file order.
   *
   * @example Entries in file order
   * ```ts
   * import { Session } from "@xdev/session";
   * import { deepEqual } from "node:assert/strict";
   *
   * const dataDir = await Deno.makeTempDir();
   * try {
   *   await using session = await Session.create({ cwd: "/home/dev/app", dataDir });
   *   await session.appendModelChange("openai/gpt-5.1-codex");
   *   await session.appendMessage({ role: "user", content: "Hi" });
   *   deepEqual(session.entries.map((e) => e.type), ["model_change", "message"]);
   * } finally {
   *   await Deno.remove(dataDir, { recursive: true });
   * }
   * ```
   */
  get entries(): readonly SessionEntry[] {
    return this.#loaded.entries;
  }

  /**
   * An entry by id.
   *
   * @example Looking up the leaf of a fixture
   * ```ts
   * import { Session } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   *
   * const url = new URL("../../fixtures/omp/s1-main.jsonl", import.meta.url);
   * await using session = await Session.open(url.pathname);
   * equal(session.getEntry(session.leafId!)?.type, "message");
   * equal(session.getEntry("ffffffff"), undefined);
   * ```
   *
   * @param id The entry's id.
   * @returns The entry, if it is in memory.
   */
  getEntry(id: string): SessionEntry | undefined {
    return this.#loaded.byId.get(id);
  }

  /**
   * Rebuild what the model sees on resume (DESIGN §3.7).
   *
   * @example Rebuilding the context of a fixture
   * ```ts
   * import { Session } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   *
   * const url = new URL("../../fixtures/omp/s1-main.jsonl", import.meta.url);
   * await using session = await Session.open(url.pathname);
   * const ctx = session.buildContext();
   * equal(ctx.model, "openai/gpt-5.1-codex");
   * equal(ctx.thinkingLevel, "high");
   * equal(ctx.messages[0]?.role, "compactionSummary");
   * equal(session.buildContext({ leafId: null }).messages.length, 0);
   * ```
   *
   * @param options Another leaf, or omp's reset rule for comparison.
   * @returns The context.
   */
  buildContext(options: SessionBuildContextOptions = {}): SessionContext {
    const { images, texts } = this.#blobs;
    const w = this.#loaded.window;
    return buildSessionContext(
      this.#loaded.entries,
      this.#loaded.byId,
      options.leafId === undefined ? this.#leafId : options.leafId,
      {
        resolveBlob: (hex) => images.get(hex),
        resolveText: (hex) => texts.get(hex),
        resetRule: options.resetRule ?? "xdev",
        ...(w === undefined
          ? {}
          : { window: { ...w, labels: this.#labels() } }),
      },
    );
  }

  /**
   * What the loader kept and looked at.
   *
   * @example What the windowed open kept
   * ```ts
   * import { Session } from "@xdev/session";
   * import { equal, ok } from "node:assert/strict";
   *
   * const url = new URL("../../fixtures/omp/s1-main.jsonl", import.meta.url);
   * {
   *   await using session = await Session.open(url.pathname);
   *   const stats = session.windowStats();
   *   ok(stats.windowed && stats.retained < stats.seen);
   * }
   * await using whole = await Session.open(url.pathname, { window: false });
   * equal(whole.windowStats().retained, 60);
   * ```
   *
   * @returns The figures.
   */
  windowStats(): WindowStats {
    return {
      retained: this.#loaded.entries.length,
      seen: this.#loaded.seen,
      windowed: this.#loaded.windowed,
      bytesRead: this.#loaded.bytes,
    };
  }

  /**
   * Write a new session's file now: title slot, header and every entry so
   * far (files 0600, folders 0700). Does nothing when it is on disk.
   *
   * @example Writing a session and reading it back
   * ```ts
   * import { Session } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   *
   * const dataDir = await Deno.makeTempDir();
   * try {
   *   await using session = await Session.create({ cwd: "/home/dev/app", dataDir });
   *   await session.appendMessage({ role: "user", content: "Hi" });
   *   await session.ensureOnDisk();
   *   await using again = await Session.open(session.path!);
   *   equal(again.entries.length, 1);
   * } finally {
   *   await Deno.remove(dataDir, { recursive: true });
   * }
   * ```
   *
   * @throws {TypeError} For a session read from a stream (it has no path).
   */
  ensureOnDisk(): Promise<void> {
    return this.#exclusive(() => this.#ensureOnDisk());
  }

  /**
   * Write the file at the first assistant message (as omp does); until then the session stays in memory.
   *
   * @example No file until the first answer
   * ```ts
   * import { Session } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   *
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
    this.#autoPersist = true;
  }

  /**
   * Append entries in one write (DESIGN §3.10): each payload gets an id, the
   * previous entry (or the leaf) as parent, and a timestamp, envelope first.
   * Large images go to the blob store on the way. A compaction or reset is
   * followed by a settings checkpoint, so the next open stops there.
   *
   * @example A question and its answer in one write
   * ```ts
   * import { Session } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   *
   * const dataDir = await Deno.makeTempDir();
   * try {
   *   await using session = await Session.create({ cwd: "/home/dev/app", dataDir });
   *   const [question, answer] = await session.appendBatch([
   *     { type: "message", message: { role: "user", content: "Hi" } },
   *     { type: "message", message: { role: "assistant", content: [{ type: "text", text: "Hello" }] } },
   *   ]);
   *   equal(answer!.parentId, question!.id);
   *   equal(session.leafId, answer!.id);
   * } finally {
   *   await Deno.remove(dataDir, { recursive: true });
   * }
   * ```
   *
   * @param payloads The entries' types and fields.
   * @param options The first entry's parent.
   * @returns The entries as written.
   * @throws {Error} When the write fails; the session then refuses further writes.
   */
  appendBatch(
    payloads: readonly EntryPayload[],
    options: AppendOptions = {},
  ): Promise<SessionEntry[]> {
    return this.#exclusive(() => this.#append(payloads, options));
  }

  /**
   * Append one entry of any type (unknown types too).
   *
   * @example Appending an entry of an unknown type
   * ```ts
   * import { Session } from "@xdev/session";
   * import { deepEqual, equal } from "node:assert/strict";
   *
   * const dataDir = await Deno.makeTempDir();
   * try {
   *   await using session = await Session.create({ cwd: "/home/dev/app", dataDir });
   *   const entry = await session.append({ type: "xdev_probe", note: "kept as is" });
   *   equal(entry.type, "xdev_probe");
   *   deepEqual(session.getEntry(entry.id), entry);
   * } finally {
   *   await Deno.remove(dataDir, { recursive: true });
   * }
   * ```
   *
   * @param payload The entry's type and fields.
   * @param options Its parent.
   * @returns The entry as written.
   */
  async append(
    payload: EntryPayload,
    options: AppendOptions = {},
  ): Promise<SessionEntry> {
    return (await this.appendBatch([payload], options))[0]!;
  }

  /**
   * Append a conversation message.
   *
   * @example Appending a user message
   * ```ts
   * import { Session } from "@xdev/session";
   * import { deepEqual } from "node:assert/strict";
   *
   * const dataDir = await Deno.makeTempDir();
   * try {
   *   await using session = await Session.create({ cwd: "/home/dev/app", dataDir });
   *   await session.appendMessage({ role: "user", content: "Why does CI fail?" });
   *   deepEqual(session.buildContext().messages.map((m) => m.role), ["user"]);
   * } finally {
   *   await Deno.remove(dataDir, { recursive: true });
   * }
   * ```
   *
   * @param message The message.
   * @returns The entry.
   */
  async appendMessage(message: AgentMessage): Promise<MessageEntry> {
    return await this.append({ type: "message", message }) as MessageEntry;
  }

  /**
   * Change the model of a role.
   *
   * @example Setting the default and the smol model
   * ```ts
   * import { Session } from "@xdev/session";
   * import { deepEqual } from "node:assert/strict";
   *
   * const dataDir = await Deno.makeTempDir();
   * try {
   *   await using session = await Session.create({ cwd: "/home/dev/app", dataDir });
   *   await session.appendModelChange("openai/gpt-5.1-codex");
   *   await session.appendModelChange("anthropic/claude-haiku-4-5", "smol");
   *   deepEqual(session.buildContext().models, {
   *     default: "openai/gpt-5.1-codex",
   *     smol: "anthropic/claude-haiku-4-5",
   *   });
   * } finally {
   *   await Deno.remove(dataDir, { recursive: true });
   * }
   * ```
   *
   * @param model `provider/modelId`.
   * @param role Absent: `default`.
   * @returns The entry.
   */
  async appendModelChange(
    model: string,
    role?: string,
  ): Promise<ModelChangeEntry> {
    return await this.append({
      type: "model_change",
      model,
      ...(role === undefined ? {} : { role }),
      resolvedModelIsFallback: false,
    }) as ModelChangeEntry;
  }

  /**
   * Change the thinking level.
   *
   * @example Thinking harder, chosen automatically
   * ```ts
   * import { Session } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   *
   * const dataDir = await Deno.makeTempDir();
   * try {
   *   await using session = await Session.create({ cwd: "/home/dev/app", dataDir });
   *   await session.appendThinkingLevelChange("high", "auto");
   *   const ctx = session.buildContext();
   *   equal(ctx.thinkingLevel, "high");
   *   equal(ctx.configuredThinkingLevel, "auto");
   * } finally {
   *   await Deno.remove(dataDir, { recursive: true });
   * }
   * ```
   *
   * @param thinkingLevel The level.
   * @param configured The selector (`auto` or a level).
   * @returns The entry.
   */
  async appendThinkingLevelChange(
    thinkingLevel: string | null,
    configured: string | null = thinkingLevel,
  ): Promise<ThinkingLevelChangeEntry> {
    return await this.append({
      type: "thinking_level_change",
      thinkingLevel,
      configured,
    }) as ThinkingLevelChangeEntry;
  }

  /**
   * Change the service tier.
   *
   * @example Switching to the priority tier
   * ```ts
   * import { Session } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   *
   * const dataDir = await Deno.makeTempDir();
   * try {
   *   await using session = await Session.create({ cwd: "/home/dev/app", dataDir });
   *   const entry = await session.appendServiceTierChange("priority");
   *   equal(entry.serviceTier, "priority");
   *   equal(session.leafId, entry.id);
   * } finally {
   *   await Deno.remove(dataDir, { recursive: true });
   * }
   * ```
   *
   * @param serviceTier The tier, or null.
   * @returns The entry.
   */
  async appendServiceTierChange(
    serviceTier: unknown,
  ): Promise<ServiceTierChangeEntry> {
    return await this.append({
      type: "service_tier_change",
      serviceTier,
    }) as ServiceTierChangeEntry;
  }

  /**
   * Replace the history before `firstKeptEntryId` by a summary.
   *
   * @example Appending a compaction
   * ```ts
   * import { Session } from "@xdev/session";
   * import { deepEqual } from "node:assert/strict";
   *
   * const dataDir = await Deno.makeTempDir();
   * try {
   *   await using session = await Session.create({ cwd: "/home/dev/app", dataDir });
   *   await session.appendMessage({ role: "user", content: "An old question" });
   *   const kept = await session.appendMessage({ role: "user", content: "A recent one" });
   *   await session.appendCompaction({ summary: "Asked about CI.", firstKeptEntryId: kept.id, tokensBefore: 1200 });
   *   const roles = session.buildContext().messages.map((m) => m.role);
   *   deepEqual(roles, ["compactionSummary", "user"]);
   * } finally {
   *   await Deno.remove(dataDir, { recursive: true });
   * }
   * ```
   *
   * @param compaction The summary, the first kept entry (null: none) and the tokens before.
   * @returns The entry.
   */
  async appendCompaction(
    compaction: {
      summary: string;
      firstKeptEntryId: string | null;
      tokensBefore: number;
    } & Record<string, unknown>,
  ): Promise<CompactionEntry> {
    return await this.append({
      type: "compaction",
      ...compaction,
    }) as CompactionEntry;
  }

  /**
   * Branch back to `fromId` with a summary of the abandoned branch: the entry
   * is a child of `fromId` and becomes the leaf.
   *
   * @example Abandoning a branch with a summary
   * ```ts
   * import { Session } from "@xdev/session";
   * import { deepEqual, equal } from "node:assert/strict";
   *
   * const dataDir = await Deno.makeTempDir();
   * try {
   *   await using session = await Session.create({ cwd: "/home/dev/app", dataDir });
   *   const start = await session.appendMessage({ role: "user", content: "Try plan A" });
   *   await session.appendMessage({ role: "user", content: "Plan A failed" });
   *   const summary = await session.appendBranchSummary(start.id, "Plan A failed: no lock.");
   *   equal(session.leafId, summary.id);
   *   deepEqual(session.buildContext().messages.map((m) => m.role), ["user", "branchSummary"]);
   * } finally {
   *   await Deno.remove(dataDir, { recursive: true });
   * }
   * ```
   *
   * @param fromId The branch point, or null for the root.
   * @param summary What the abandoned branch did.
   * @param details Anything else to keep.
   * @returns The entry.
   */
  async appendBranchSummary(
    fromId: string | null,
    summary: string,
    details?: unknown,
  ): Promise<BranchSummaryEntry> {
    return await this.append({
      type: "branch_summary",
      fromId: fromId ?? "root",
      summary,
      ...(details === undefined ? {} : { details }),
    }, { parentId: fromId }) as BranchSummaryEntry;
  }

  /**
   * `/clear`: nothing before it reaches the model.
   *
   * @example Clearing the context
   * ```ts
   * import { Session } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   *
   * const dataDir = await Deno.makeTempDir();
   * try {
   *   await using session = await Session.create({ cwd: "/home/dev/app", dataDir });
   *   await session.appendMessage({ role: "user", content: "Before /clear" });
   *   await session.appendResetBoundary();
   *   await session.appendMessage({ role: "user", content: "After /clear" });
   *   equal(session.buildContext().messages.length, 1);
   * } finally {
   *   await Deno.remove(dataDir, { recursive: true });
   * }
   * ```
   *
   * @returns The entry.
   */
  async appendResetBoundary(): Promise<ResetBoundaryEntry> {
    return await this.append({ type: "reset_boundary" }) as ResetBoundaryEntry;
  }

  /**
   * Harness state that never reaches the model.
   *
   * @example Keeping harness state out of the context
   * ```ts
   * import { Session } from "@xdev/session";
   * import { deepEqual, equal } from "node:assert/strict";
   *
   * const dataDir = await Deno.makeTempDir();
   * try {
   *   await using session = await Session.create({ cwd: "/home/dev/app", dataDir });
   *   const entry = await session.appendCustom("todo-state", { open: 2 });
   *   deepEqual(entry.data, { open: 2 });
   *   equal(session.buildContext().messages.length, 0);
   * } finally {
   *   await Deno.remove(dataDir, { recursive: true });
   * }
   * ```
   *
   * @param customType Its kind.
   * @param data Its data.
   * @returns The entry.
   */
  async appendCustom(customType: string, data?: unknown): Promise<CustomEntry> {
    return await this.append({
      type: "custom",
      customType,
      ...(data === undefined ? {} : { data }),
    }) as CustomEntry;
  }

  /**
   * A message from a harness or hook (role `custom` in the context).
   *
   * @example A hook's note the UI hides
   * ```ts
   * import { Session } from "@xdev/session";
   * import { ok } from "node:assert/strict";
   *
   * const dataDir = await Deno.makeTempDir();
   * try {
   *   await using session = await Session.create({ cwd: "/home/dev/app", dataDir });
   *   await session.appendCustomMessage("hook-note", "Tests are slow today", { display: false });
   *   const [note] = session.buildContext().messages;
   *   ok(note?.role === "custom" && note.customType === "hook-note" && note.display === false);
   * } finally {
   *   await Deno.remove(dataDir, { recursive: true });
   * }
   * ```
   *
   * @param customType Its kind.
   * @param content Text or blocks.
   * @param options Whether it is shown, details.
   * @returns The entry.
   */
  async appendCustomMessage(
    customType: string,
    content: string | ContentBlock[],
    options: { display?: boolean; details?: unknown } = {},
  ): Promise<CustomMessageEntry> {
    return await this.append({
      type: "custom_message",
      customType,
      content,
      display: options.display ?? true,
      ...(options.details === undefined ? {} : { details: options.details }),
    }) as CustomMessageEntry;
  }

  /**
   * Set or (without `label`) clear an entry's label.
   *
   * @example Labelling an entry
   * ```ts
   * import { Session } from "@xdev/session";
   * import { deepEqual } from "node:assert/strict";
   *
   * const dataDir = await Deno.makeTempDir();
   * try {
   *   await using session = await Session.create({ cwd: "/home/dev/app", dataDir });
   *   const entry = await session.appendMessage({ role: "user", content: "Start here" });
   *   await session.appendLabel(entry.id, "start");
   *   deepEqual(session.buildContext().labels, { [entry.id]: "start" });
   * } finally {
   *   await Deno.remove(dataDir, { recursive: true });
   * }
   * ```
   *
   * @param targetId The entry.
   * @param label The label.
   * @returns The entry.
   */
  async appendLabel(targetId: string, label?: string): Promise<LabelEntry> {
    return await this.append({
      type: "label",
      targetId,
      ...(label === undefined ? {} : { label }),
    }) as LabelEntry;
  }

  /**
   * A subagent's contract.
   *
   * @example A subagent's first entry
   * ```ts
   * import { Session } from "@xdev/session";
   * import { deepEqual, equal } from "node:assert/strict";
   *
   * const dataDir = await Deno.makeTempDir();
   * try {
   *   await using session = await Session.create({ cwd: "/home/dev/app", dataDir });
   *   const init = await session.appendSessionInit({
   *     systemPrompt: "You review diffs.",
   *     task: "Review src/",
   *     tools: ["read", "grep"],
   *   });
   *   deepEqual(init.tools, ["read", "grep"]);
   *   equal(init.parentId, null);
   * } finally {
   *   await Deno.remove(dataDir, { recursive: true });
   * }
   * ```
   *
   * @param init The system prompt, task and tools.
   * @returns The entry.
   */
  async appendSessionInit(
    init:
      & { systemPrompt: string; task: string; tools: string[] }
      & Record<string, unknown>,
  ): Promise<SessionInitEntry> {
    return await this.append({
      type: "session_init",
      ...init,
    }) as SessionInitEntry;
  }

  /**
   * A side call's model usage.
   *
   * @example Recording a side call that named the session
   * ```ts
   * import { Session } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   *
   * const dataDir = await Deno.makeTempDir();
   * try {
   *   await using session = await Session.create({ cwd: "/home/dev/app", dataDir });
   *   const entry = await session.appendModelUsage({
   *     purpose: "title", api: "openai-responses", provider: "openai", model: "gpt-5-mini",
   *     usage: { input: 120, output: 8 }, stopReason: "stop",
   *   });
   *   equal(entry.purpose, "title");
   *   equal(session.buildContext().messages.length, 0);
   * } finally {
   *   await Deno.remove(dataDir, { recursive: true });
   * }
   * ```
   *
   * @param usage The call.
   * @returns The entry.
   */
  async appendModelUsage(
    usage:
      & {
        purpose: string;
        api: string;
        provider: string;
        model: string;
        usage: unknown;
        stopReason: string;
      }
      & Record<
        string,
        unknown
      >,
  ): Promise<ModelUsageEntry> {
    return await this.append({
      type: "model_usage",
      ...usage,
    }) as ModelUsageEntry;
  }

  /**
   * Change the agent's mode.
   *
   * @example Entering plan mode
   * ```ts
   * import { Session } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   *
   * const dataDir = await Deno.makeTempDir();
   * try {
   *   await using session = await Session.create({ cwd: "/home/dev/app", dataDir });
   *   const entry = await session.appendModeChange("plan");
   *   equal(entry.mode, "plan");
   *   equal(session.leafId, entry.id);
   * } finally {
   *   await Deno.remove(dataDir, { recursive: true });
   * }
   * ```
   *
   * @param mode `plan`, `none` …
   * @param data Mode data.
   * @returns The entry.
   */
  async appendModeChange(
    mode: string,
    data?: unknown,
  ): Promise<ModeChangeEntry> {
    return await this.append({
      type: "mode_change",
      mode,
      ...(data === undefined ? {} : { data }),
    }) as ModeChangeEntry;
  }

  /**
   * Rules injected into the context.
   *
   * @example Recording injected rules
   * ```ts
   * import { Session } from "@xdev/session";
   * import { deepEqual } from "node:assert/strict";
   *
   * const dataDir = await Deno.makeTempDir();
   * try {
   *   await using session = await Session.create({ cwd: "/home/dev/app", dataDir });
   *   const entry = await session.appendTtsrInjection(["no-console-log"]);
   *   deepEqual(entry.injectedRules, ["no-console-log"]);
   * } finally {
   *   await Deno.remove(dataDir, { recursive: true });
   * }
   * ```
   *
   * @param injectedRules Their names.
   * @returns The entry.
   */
  async appendTtsrInjection(
    injectedRules: string[],
  ): Promise<TtsrInjectionEntry> {
    return await this.append({
      type: "ttsr_injection",
      injectedRules,
    }) as TtsrInjectionEntry;
  }

  /**
   * Pin a credential for a provider.
   *
   * @example Pinning a credential
   * ```ts
   * import { Session } from "@xdev/session";
   * import { deepEqual } from "node:assert/strict";
   *
   * const dataDir = await Deno.makeTempDir();
   * try {
   *   await using session = await Session.create({ cwd: "/home/dev/app", dataDir });
   *   const entry = await session.appendCredentialPin("anthropic", "sha256:9f2c");
   *   deepEqual([entry.provider, entry.hash], ["anthropic", "sha256:9f2c"]);
   * } finally {
   *   await Deno.remove(dataDir, { recursive: true });
   * }
   * ```
   *
   * @param provider The provider.
   * @param hash The credential's hash.
   * @returns The entry.
   */
  async appendCredentialPin(
    provider: string,
    hash: string,
  ): Promise<CredentialPinEntry> {
    return await this.append({
      type: "credential_pin",
      provider,
      hash,
    }) as CredentialPinEntry;
  }

  /**
   * Rename the session (DESIGN §3.3): append a `title_change` entry, then
   * overwrite the 256-byte title slot in place (a file without a valid slot
   * is rewritten whole, atomically, once).
   *
   * @example Renaming a session on disk
   * ```ts
   * import { Session } from "@xdev/session";
   * import { deepEqual, equal } from "node:assert/strict";
   *
   * const dataDir = await Deno.makeTempDir();
   * try {
   *   await using session = await Session.create({ cwd: "/home/dev/app", dataDir });
   *   await session.ensureOnDisk();
   *   const entry = await session.setTitle("Fix the\tflaky test");
   *   equal(entry.title, "Fix the flaky test");
   *   await using again = await Session.open(session.path!);
   *   deepEqual([again.title, again.titleSource], ["Fix the flaky test", "manual"]);
   * } finally {
   *   await Deno.remove(dataDir, { recursive: true });
   * }
   * ```
   *
   * @param title The new title (cleaned; cut to fit the slot, the entry keeps it whole).
   * @param source Who set it. Default `manual`.
   * @returns The `title_change` entry.
   * @throws {TypeError} When the title is empty once cleaned.
   */
  setTitle(
    title: string,
    source: TitleSource = "manual",
  ): Promise<TitleChangeEntry> {
    return this.#exclusive(async () => {
      const cleaned = cleanTitle(title);
      if (cleaned.length === 0) {
        throw new TypeError("Cannot set the title: it is empty once cleaned");
      }
      const previous = this.title;
      const [entry] = await this.#append([{
        type: "title_change",
        title: cleaned,
        source: source === "manual" ? "user" : source,
        ...(previous === undefined ? {} : { previousTitle: previous }),
      }], {});
      const slot: TitleSlot = {
        title: cleaned,
        source,
        updatedAt: entry!.timestamp,
      };
      const bytes = marshalTitleSlot(slot);
      if (this.#onDisk) {
        if (this.#loaded.slotState === "ok") {
          await (await this.#writerFor("rename")).rewriteSlot(bytes);
        } else {
          await this.#writer?.close();
          this.#writer = undefined;
          await rewriteWithSlot(this.#path!, bytes, {
            dropFirstLine: this.#loaded.slotState !== "absent",
            ...this.#writerOptions(),
          });
        }
      }
      this.#loaded.slot = slot;
      this.#loaded.slotState = "ok";
      return entry as TitleChangeEntry;
    });
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
   *
   * const dataDir = await Deno.makeTempDir();
   * try {
   *   await using session = await Session.create({ cwd: "/home/dev/app", dataDir });
   *   const first = await session.appendMessage({ role: "user", content: "Plan A" });
   *   await session.appendMessage({ role: "user", content: "Plan A, step 2" });
   *   const marker = await session.branch(first.id);
   *   equal(marker.customType, "branch");
   *   equal(session.leafId, first.id);
   *   equal(session.buildContext().messages.length, 1);
   * } finally {
   *   await Deno.remove(dataDir, { recursive: true });
   * }
   * ```
   *
   * @param entryId An entry of this session.
   * @returns The marker.
   * @throws {RangeError} When no entry has that id.
   */
  branch(entryId: string): Promise<CustomEntry> {
    return this.#exclusive(async () => {
      const known = this.#loaded.byId.has(entryId) ||
        (this.#onDisk && (await this.#fileIds()).has(entryId));
      if (!known) {
        throw new RangeError(
          `Cannot branch to "${entryId}": no entry has that id`,
        );
      }
      const [marker] = await this.#append([{
        type: "custom",
        customType: BRANCH_MARKER_TYPE,
        data: { to: entryId },
      }], { parentId: entryId });
      if (!this.#loaded.byId.has(entryId)) await this.#reload(); // the target is outside the window
      return marker as CustomEntry;
    });
  }

  /**
   * Whether {@linkcode Session.close} was called.
   *
   * @example Closing a session
   * ```ts
   * import { Session } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   *
   * const dataDir = await Deno.makeTempDir();
   * try {
   *   const session = await Session.create({ cwd: "/home/dev/app", dataDir });
   *   equal(session.closed, false);
   *   await session.close();
   *   equal(session.closed, true);
   * } finally {
   *   await Deno.remove(dataDir, { recursive: true });
   * }
   * ```
   */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Release the file handle. Reading after close still works; writing does not.
   *
   * @example Reading still works after close, appending does not
   * ```ts
   * import { Session } from "@xdev/session";
   * import { equal, rejects } from "node:assert/strict";
   *
   * const dataDir = await Deno.makeTempDir();
   * try {
   *   const session = await Session.create({ cwd: "/home/dev/app", dataDir });
   *   await session.appendMessage({ role: "user", content: "Hi" });
   *   await session.ensureOnDisk();
   *   await session.close();
   *   equal(session.buildContext().messages.length, 1);
   *   await rejects(session.appendResetBoundary(), /the session is closed/);
   * } finally {
   *   await Deno.remove(dataDir, { recursive: true });
   * }
   * ```
   */
  close(): Promise<void> {
    return this.#exclusive(async () => {
      this.#closed = true;
      await this.#writer?.close();
      this.#writer = undefined;
    });
  }

  /**
   * Same as {@linkcode Session.close}, for `await using`.
   *
   * @example Closing at the end of a block
   * ```ts
   * import { Session } from "@xdev/session";
   * import { equal } from "node:assert/strict";
   *
   * const dataDir = await Deno.makeTempDir();
   * try {
   *   let outer: Session;
   *   {
   *     await using session = await Session.create({ cwd: "/home/dev/app", dataDir });
   *     await session.ensureOnDisk();
   *     outer = session;
   *   }
   *   equal(outer.closed, true);
   * } finally {
   *   await Deno.remove(dataDir, { recursive: true });
   * }
   * ```
   */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  /** Run `fn` after every write queued before it. */
  #exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(fn, fn);
    this.#queue = run.catch(() => {});
    return run;
  }

  #labels(): Record<string, string> {
    const base = this.#loaded.window?.labels ?? {};
    return collectLabels(this.#loaded.entries.slice(this.#appendedFrom), base);
  }

  #writerOptions(): { sync?: boolean; lockTimeoutMs?: number } {
    const o = this.#options;
    return {
      ...(o.sync === undefined ? {} : { sync: o.sync }),
      ...(o.lockTimeoutMs === undefined
        ? {}
        : { lockTimeoutMs: o.lockTimeoutMs }),
    };
  }

  async #writerFor(action: string): Promise<SessionWriter> {
    const name = this.#path ?? "<stream>";
    if (this.#closed) {
      throw new Error(`Cannot ${action} "${name}": the session is closed`);
    }
    if (this.#path === undefined) {
      throw new TypeError(
        `Cannot ${action} "${name}": a session read from a stream has no file`,
      );
    }
    const version = headerVersion(this.#loaded.header);
    if (version !== SESSION_VERSION) {
      throw new TypeError(
        `Cannot ${action} "${name}": it is a version ${version} session; fork it to a version ${SESSION_VERSION} file first`,
      );
    }
    this.#writer ??= await SessionWriter.open(
      this.#path,
      this.#writerOptions(),
    );
    return this.#writer;
  }

  async #append(
    payloads: readonly EntryPayload[],
    options: AppendOptions,
  ): Promise<SessionEntry[]> {
    if (this.#closed) {
      throw new Error(
        `Cannot append to "${this.#path ?? "<stream>"}": the session is closed`,
      );
    }
    const loaded = this.#loaded;
    const before = { length: loaded.entries.length, leaf: this.#leafId };
    const written: SessionEntry[] = [];
    const lines: string[] = [];
    const now = this.#options.now ?? (() => new Date());
    try {
      for (let i = 0; i < payloads.length; i++) {
        const p = payloads[i]!;
        if (typeof p.type !== "string" || p.type.length === 0) {
          throw new TypeError("Cannot append: an entry needs a type");
        }
        const rest = Object.fromEntries(
          Object.entries(p).filter(([k]) => !_ENVELOPE_KEYS.has(k)),
        );
        const parentId = i === 0 && options.parentId !== undefined
          ? options.parentId
          : this.#leafId;
        let entry = {
          type: p.type,
          id: newEntryId(await this.#takenIds()),
          parentId,
          timestamp: now().toISOString(),
          ...rest,
        } as SessionEntry;
        if (this.#onDisk) entry = await this.#prepare(entry);
        this.#add(entry);
        written.push(entry);
        lines.push(encodeEntry(entry));
        if (entry.type === "compaction" || entry.type === "reset_boundary") {
          const checkpoint = this.#checkpoint(now);
          this.#add(checkpoint);
          lines.push(encodeEntry(checkpoint));
        }
      }
      if (this.#onDisk) {
        await (await this.#writerFor("append to")).append(lines);
      } else if (this.#autoPersist && written.some(_isAssistant)) {
        await this.#ensureOnDisk();
      }
    } catch (err) {
      for (const e of loaded.entries.splice(before.length)) {
        loaded.byId.delete(e.id);
      }
      this.#leafId = before.leaf;
      throw err;
    }
    return written;
  }

  /** Ids a new entry must avoid: in memory, and (windowed) in the whole file. */
  async #takenIds(): Promise<{ has(id: string): boolean }> {
    if (this.#loaded.windowed && this.#path !== undefined) {
      await this.#fileIds();
    }
    return this.#idsInUse();
  }

  /** The id of every entry in the file, read once (envelopes only), then kept up to date by appends. */
  async #fileIds(): Promise<Set<string>> {
    if (this.#outsideIds === undefined) {
      const file = await Deno.open(this.#path!);
      try {
        this.#outsideIds = await scanEntryIds(readLinesFromReader(file));
      } finally {
        file.close();
      }
    }
    return this.#outsideIds;
  }

  #idsInUse(): { has(id: string): boolean } {
    const byId = this.#loaded.byId;
    const outside = this.#outsideIds;
    return outside === undefined
      ? byId
      : { has: (id) => byId.has(id) || outside.has(id) };
  }

  #add(entry: SessionEntry): void {
    this.#outsideIds?.add(entry.id); // stays complete across a reload
    this.#loaded.entries.push(entry);
    this.#loaded.byId.set(entry.id, entry);
    this.#leafId = branchMarkerTarget(entry) ?? entry.id;
  }

  /** The settings checkpoint after a boundary: settings along the path, labels of the whole file. */
  #checkpoint(now: () => Date): SessionEntry {
    const path = pathTo(this.#leafId, this.#loaded.byId).entries;
    const s = foldSettings(path, this.#loaded.window?.carried);
    const data: SettingsCheckpoint = {
      v: 1,
      models: s.models,
      explicitDefaultModel: s.explicitDefaultModel,
      thinkingLevel: s.thinkingLevel,
      configuredThinkingLevel: s.configuredThinkingLevel,
      labels: this.#loaded.window === undefined
        ? collectLabels(this.#loaded.entries)
        : this.#labels(),
    };
    return {
      type: "custom",
      id: newEntryId(this.#idsInUse()),
      parentId: this.#leafId,
      timestamp: now().toISOString(),
      customType: SETTINGS_CHECKPOINT_TYPE,
      data,
    } as SessionEntry;
  }

  #prepare(entry: SessionEntry): Promise<SessionEntry> {
    const blobs = this.#dataDir === undefined
      ? undefined
      : new BlobStore(join(this.#dataDir, "blobs"), {
        sync: this.#options.sync ?? false,
      });
    return prepareForDisk(entry, {
      blobs,
      textBlobThreshold: this.#options.textBlobThreshold,
    }, this.#blobs);
  }

  async #ensureOnDisk(): Promise<void> {
    if (this.#onDisk) return;
    if (this.#path === undefined) {
      throw new TypeError(
        'Cannot write "<stream>": a session read from a stream has no file',
      );
    }
    const loaded = this.#loaded;
    const prepared: SessionEntry[] = [];
    for (const e of loaded.entries) prepared.push(await this.#prepare(e));
    const enc = new TextEncoder();
    const slot = marshalTitleSlot(loaded.slot!);
    const rest = enc.encode(
      [JSON.stringify(loaded.header), ...prepared.map(encodeEntry)].map((l) =>
        `${l}\n`
      ).join(""),
    );
    const body = new Uint8Array(slot.length + rest.length);
    body.set(slot);
    body.set(rest, slot.length);
    this.#writer = await SessionWriter.create(
      this.#path,
      body,
      this.#writerOptions(),
    );
    loaded.entries = prepared;
    loaded.byId = new Map(prepared.map((e) => [e.id, e]));
    this.#onDisk = true;
  }

  /** Read the file again (after branching outside the window). */
  async #reload(): Promise<void> {
    const { loaded, blobs } = await readSessionFile(this.#path!, {
      dataDir: this.#dataDir,
      resolveBlobs: true,
      window: true,
    });
    this.#loaded = loaded;
    this.#blobs = blobs;
    this.#appendedFrom = loaded.entries.length;
    this.#leafId = loaded.leafId !== undefined
      ? loaded.leafId
      : resolveLeaf(loaded.entries, loaded.byId);
  }
}

function _isAssistant(e: SessionEntry): boolean {
  return e.type === "message" &&
    (e.message as { role?: unknown } | null)?.role === "assistant";
}
