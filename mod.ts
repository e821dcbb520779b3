/**
 * The xdev session store: read and write coding-agent session transcripts.
 *
 * A session is one JSONL file: line 1 is a fixed-width (256-byte) title slot,
 * line 2 the header (`{"type":"session","version":3,...}`), and every further
 * line an entry of an append-only tree (`type`, `id`, `parentId`,
 * `timestamp`, then a payload). The leaf is the last entry; the context the
 * model sees is rebuilt from the path root → leaf, after the latest reset and
 * under the latest compaction. Large images live in a content-addressed blob
 * store (`blob:sha256:<hex>`). The format is shared with omp, the oh-my-pi
 * coding agent.
 *
 * @example A tour: open, build the context, create, append, rename, fork, list
 * ```ts
 * import { forkSession, listSessions, Session } from "@xdev/session";
 * import { deepEqual, equal } from "node:assert/strict";
 *
 * // Open a session omp wrote and rebuild what the model sees on resume.
 * const url = new URL("./fixtures/omp/s1-main.jsonl", import.meta.url);
 * {
 *   await using omp = await Session.open(url.pathname);
 *   const ctx = omp.buildContext();
 *   equal(ctx.model, "openai/gpt-5.1-codex");
 *   equal(ctx.messages.length, 19);
 * }
 *
 * // Start a session of our own in a fresh data dir.
 * const dataDir = await Deno.makeTempDir();
 * try {
 *   await using session = await Session.create({ cwd: "/home/dev/app", dataDir });
 *   await session.appendMessage({ role: "user", content: "Add a --json flag" });
 *   await session.ensureOnDisk();
 *   await session.setTitle("Add --json");
 *
 *   // Fork it: a new file, a new id, the same entries.
 *   const fork = await forkSession(session.path!, undefined, { label: "Try --format" });
 *   equal(fork.parentSession, session.header.id);
 *
 *   // List the data dir's sessions (newest first; titles sorted here).
 *   const titles = (await listSessions(dataDir)).map((info) => info.title).sort();
 *   deepEqual(titles, ["Add --json", "Try --format"]);
 * } finally {
 *   await Deno.remove(dataDir, { recursive: true });
 * }
 * ```
 *
 * @module
 */

export { parseBlobRef } from "./src/format/blob_ref.ts";
export {
  type BranchSummaryEntry,
  type CompactionEntry,
  type CredentialPinEntry,
  type CustomEntry,
  type CustomMessageEntry,
  type EntryEnvelope,
  isEntryOfType,
  type KnownEntry,
  type LabelEntry,
  type MessageEntry,
  type ModeChangeEntry,
  type ModelChangeEntry,
  type ModelUsageEntry,
  type OpaqueEntry,
  type ResetBoundaryEntry,
  type ServiceTierChangeEntry,
  type SessionEntry,
  type SessionInitEntry,
  type ThinkingLevelChangeEntry,
  type TitleChangeEntry,
  type TtsrInjectionEntry,
} from "./src/format/entries.ts";
export {
  SessionSyntaxError,
  type SessionSyntaxErrorOptions,
} from "./src/format/errors.ts";
export { SESSION_VERSION, type SessionHeader } from "./src/format/header.ts";
export type { LoadIssue, LoadIssueKind } from "./src/format/issues.ts";
export type { SessionRecord, SessionRecordOf } from "./src/format/records.ts";
export type {
  AgentMessage,
  AssistantMessage,
  ContentBlock,
  ImageBlock,
  OtherBlock,
  OtherMessage,
  StopReason,
  TextBlock,
  ThinkingBlock,
  ToolCallBlock,
  ToolResultMessage,
  Usage,
  UserMessage,
} from "./src/format/messages.ts";
export {
  TITLE_SLOT_BYTES,
  type TitleSlot,
  type TitleSource,
} from "./src/format/title_slot.ts";
export {
  type PathStep,
  type ResetRule,
  type SessionContext,
} from "./src/context/context.ts";
export { type ContextJson, contextToJson } from "./src/context/context_json.ts";
export type {
  BranchSummaryMessage,
  CompactionSummaryMessage,
  ContextMessage,
  CustomContextMessage,
} from "./src/context/messages.ts";
export type { PathEnd } from "./src/context/tree.ts";
export {
  SessionEntryStream,
  type SessionEntryStreamOptions,
} from "./src/read/entry_stream.ts";
export { type Line, type LineLimits, LineStream } from "./src/read/lines.ts";
export {
  type BlobPutOptions,
  BlobStore,
  type BlobStoreOptions,
} from "./src/store/blob_store.ts";
export {
  findDataDir,
  resolveDataDir,
  type ResolveDataDirOptions,
} from "./src/store/data_dir.ts";
export {
  type ForkResult,
  forkSession,
  type ForkSessionOptions,
} from "./src/store/fork.ts";
export {
  type RefreshOptions,
  type RefreshResult,
  SessionIndex,
  type SessionIndexOptions,
} from "./src/index/session_index.ts";
export { listSessions, type ListSessionsOptions } from "./src/store/list.ts";
export {
  type SearchHit,
  type SearchOptions,
  type SearchResult,
  searchSessions,
} from "./src/search/search.ts";
export type { SessionInfo } from "./src/store/session_info.ts";
export {
  canonicalCwdSlug,
  type CwdSlugOptions,
  sessionsDir,
} from "./src/store/places.ts";
export {
  type UsageReport,
  usageReport,
  type UsageReportOptions,
  type UsageRow,
} from "./src/usage/usage_report.ts";
export {
  watchSession,
  type WatchSessionOptions,
} from "./src/watch/watch_session.ts";
export {
  outlineTree,
  type OutlineTreeOptions,
  type TreeFilter,
  type TreeRow,
} from "./src/tree/outline.ts";
export {
  SessionTree,
  type SessionTreeReadOptions,
  type TreeNode,
} from "./src/tree/session_tree.ts";
export {
  type AppendOptions,
  EntryAppender,
  type EntryPayload,
} from "./src/session/entry_appender.ts";
export type {
  SessionBuildContextOptions,
  SessionCreateOptions,
  SessionFromStreamOptions,
  SessionOpenOptions,
  SessionWriteOptions,
  WindowStats,
} from "./src/session/options.ts";
export { Session } from "./src/session/session.ts";
export {
  SessionReader,
  type SessionTreeNode,
} from "./src/session/session_reader.ts";
export {
  type ExportOptions,
  type ExportResult,
  exportSession,
} from "./src/export/export.ts";
