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

export {
  BLOB_REF_PREFIX,
  looksLikeBlobRef,
  parseBlobRef,
} from "./src/format/blob_ref.ts";
export {
  type BlobPutOptions,
  BlobStore,
  type BlobStoreOptions,
  imageExtension,
} from "./src/store/blob_store.ts";
export {
  type BranchSummaryMessage,
  type BuildContextOptions,
  buildSessionContext,
  type CarriedSettings,
  collectLabels,
  type CompactionSummaryMessage,
  type ContextMessage,
  type CustomContextMessage,
  estimateTokens,
  type ResetRule,
  type SessionContext,
  type WindowPrefix,
} from "./src/context/context.ts";
export {
  CONTEXT_JSON_FIELDS,
  type ContextJson,
  contextToJson,
} from "./src/context/context_json.ts";
export {
  type AgentMessage,
  asEntry,
  type AssistantMessage,
  BRANCH_MARKER_TYPE,
  branchMarkerTarget,
  type BranchSummaryEntry,
  type CompactionEntry,
  type ContentBlock,
  type CredentialPinEntry,
  type CustomEntry,
  type CustomMessageEntry,
  encodeEntry,
  ENTRY_ID_LENGTH,
  type EntryEnvelope,
  type ImageBlock,
  isEntryOfType,
  KNOWN_ENTRY_TYPES,
  type KnownEntry,
  type LabelEntry,
  type MessageEntry,
  type ModeChangeEntry,
  type ModelChangeEntry,
  type ModelUsageEntry,
  newEntryId,
  type OpaqueEntry,
  type OtherBlock,
  type OtherMessage,
  type ResetBoundaryEntry,
  type ServiceTierChangeEntry,
  type SessionEntry,
  type SessionInitEntry,
  type StopReason,
  type TextBlock,
  type ThinkingBlock,
  type ThinkingLevelChangeEntry,
  type TitleChangeEntry,
  type ToolCallBlock,
  type ToolResultMessage,
  type TtsrInjectionEntry,
  type Usage,
  type UserMessage,
} from "./src/format/entries.ts";
export {
  SessionSyntaxError,
  type SessionSyntaxErrorOptions,
} from "./src/format/errors.ts";
export {
  asHeader,
  headerVersion,
  recordMigrator,
  SESSION_VERSION,
  type SessionHeader,
} from "./src/format/header.ts";
export {
  fileReaderAt,
  isNulFill,
  type Line,
  type Reader,
  type ReaderAt,
  readLines,
  readLinesBackward,
  type ReadLinesBackwardOptions,
  readLinesFromReader,
  type ReadLinesOptions,
} from "./src/read/lines.ts";
export type { LoadIssue, LoadIssueKind } from "./src/format/issues.ts";
export { type SessionRecord, type SessionRecordOf } from "./src/read/_records.ts";
export {
  SessionEntryStream,
  type SessionEntryStreamOptions,
} from "./src/read/entry_stream.ts";
export {
  LIST_PREFIX_BYTES,
  listSessions,
  type ListSessionsOptions,
  parseSessionPrefix,
  type SessionInfo,
} from "./src/store/list.ts";
export {
  type ForkResult,
  forkSession,
  type ForkSessionOptions,
} from "./src/store/fork.ts";
export {
  SETTINGS_CHECKPOINT_TYPE,
  type SettingsCheckpoint,
} from "./src/read/_window.ts";
export {
  rewriteWithSlot,
  SessionWriter,
  type SessionWriterOptions,
} from "./src/write/writer.ts";
export {
  canonicalCwdSlug,
  cwdSlug,
  type CwdSlugOptions,
  parseSessionFileName,
  resolveDataDir,
  type ResolveDataDirOptions,
  sessionDirFor,
  type SessionFileName,
  sessionFileName,
  sessionsDir,
} from "./src/store/places.ts";
export { uuidv7 } from "./src/format/uuid.ts";
export {
  type AppendOptions,
  type EntryPayload,
  findDataDir,
  Session,
  type SessionBuildContextOptions,
  type SessionCreateOptions,
  type SessionFromStreamOptions,
  type SessionOpenOptions,
  type SessionWriteOptions,
  type WindowStats,
} from "./src/session/session.ts";
export {
  cleanTitle,
  marshalTitleSlot,
  parseTitleSlot,
  TITLE_SLOT_BYTES,
  type TitleSlot,
  type TitleSlotParse,
  type TitleSource,
} from "./src/format/title_slot.ts";
export {
  type ActivePath,
  type PathEnd,
  pathTo,
  resolveLeaf,
} from "./src/context/tree.ts";
