import { deepStrictEqual, ok } from "node:assert/strict";
import * as mod from "../mod.ts";

/** Every name mod.ts exports, values and types, read from its source. */
async function exportedNames(): Promise<string[]> {
  const text = await Deno.readTextFile(new URL("../mod.ts", import.meta.url));
  const names: string[] = [];
  for (const m of text.matchAll(/export (?:type )?\{([^}]*)\}/g)) {
    for (const part of m[1]!.split(",")) {
      const name = part.trim().replace(/^type /, "");
      if (name) names.push(name);
    }
  }
  return names.sort();
}

// A new export is a deliberate change: add it here in the same commit, and
// list a dropped one in the README's changelog.
const VALUES = [
  "BLOB_REF_PREFIX",
  "BRANCH_MARKER_TYPE",
  "BlobStore",
  "CONTEXT_JSON_FIELDS",
  "EntryAppender",
  "KNOWN_ENTRY_TYPES",
  "LIST_HEAD_BYTES",
  "SESSION_VERSION",
  "SETTINGS_CHECKPOINT_TYPE",
  "Session",
  "SessionEntryStream",
  "SessionIndex",
  "SessionSyntaxError",
  "SessionTree",
  "TITLE_SLOT_BYTES",
  "branchMarkerTarget",
  "buildSessionContext",
  "canonicalCwdSlug",
  "cleanTitle",
  "collectLabels",
  "contextToJson",
  "cwdSlug",
  "estimateTokens",
  "exportSession",
  "findDataDir",
  "forkSession",
  "imageExtension",
  "isEntryOfType",
  "listSessions",
  "marshalTitleSlot",
  "outlineTree",
  "parseBlobRef",
  "parseSessionFileName",
  "parseTitleSlot",
  "pathTo",
  "resolveDataDir",
  "resolveLeaf",
  "searchSessions",
  "sessionDirFor",
  "sessionFileName",
  "sessionLineage",
  "sessionsDir",
  "usageReport",
  "uuidv7",
  "watchSession",
];
const TYPES = [
  "ActivePath",
  "AgentMessage",
  "AppendOptions",
  "AssistantMessage",
  "BlobPutOptions",
  "BlobStoreOptions",
  "BranchSummaryEntry",
  "BranchSummaryMessage",
  "BuildContextOptions",
  "CompactionEntry",
  "CompactionSummaryMessage",
  "ContentBlock",
  "ContextJson",
  "ContextMessage",
  "CredentialPinEntry",
  "CustomContextMessage",
  "CustomEntry",
  "CustomMessageEntry",
  "CwdSlugOptions",
  "EntryEnvelope",
  "EntryPayload",
  "ExportOptions",
  "ExportResult",
  "ForkResult",
  "ForkSessionOptions",
  "ImageBlock",
  "KnownEntry",
  "LabelEntry",
  "ListSessionsOptions",
  "LoadIssue",
  "LoadIssueKind",
  "MessageEntry",
  "ModeChangeEntry",
  "ModelChangeEntry",
  "ModelUsageEntry",
  "OpaqueEntry",
  "OtherBlock",
  "OtherMessage",
  "OutlineTreeOptions",
  "PathEnd",
  "PathStep",
  "RefreshOptions",
  "RefreshResult",
  "ResetBoundaryEntry",
  "ResetRule",
  "ResolveDataDirOptions",
  "SearchHit",
  "SearchOptions",
  "SearchResult",
  "ServiceTierChangeEntry",
  "SessionBuildContextOptions",
  "SessionContext",
  "SessionCreateOptions",
  "SessionEntry",
  "SessionEntryStreamOptions",
  "SessionFileName",
  "SessionFromStreamOptions",
  "SessionHeader",
  "SessionIndexOptions",
  "SessionInfo",
  "SessionInitEntry",
  "SessionLineage",
  "SessionLineageOptions",
  "SessionOpenOptions",
  "SessionRecord",
  "SessionRecordOf",
  "SessionSyntaxErrorOptions",
  "SessionTreeReadOptions",
  "SessionWriteOptions",
  "SettingsCheckpoint",
  "StopReason",
  "TextBlock",
  "ThinkingBlock",
  "ThinkingLevelChangeEntry",
  "TitleChangeEntry",
  "TitleSlot",
  "TitleSlotParse",
  "TitleSource",
  "ToolCallBlock",
  "ToolResultMessage",
  "TreeFilter",
  "TreeNode",
  "TreeRow",
  "TtsrInjectionEntry",
  "Usage",
  "UsageReport",
  "UsageReportOptions",
  "UsageRow",
  "UserMessage",
  "WatchSessionOptions",
  "WindowStats",
];

Deno.test("mod.ts exports exactly the public surface", async (t) => {
  await t.step("the values", () => {
    deepStrictEqual(Object.keys(mod).sort(), VALUES);
  });
  await t.step("the values and the types", async () => {
    deepStrictEqual(await exportedNames(), [...VALUES, ...TYPES].sort());
  });
  await t.step(
    // The core was cut to 109 names in 0.2.0. Each capability since adds
    // its function or class and the option and result types a caller
    // names: the index 4, export 3, tree and follow 12, search 4, usage 4.
    "a surface a user can hold in their head: at most 140 names",
    async () => {
      ok((await exportedNames()).length <= 140);
    },
  );
  await t.step("no private file is exported", async () => {
    const text = await Deno.readTextFile(new URL("../mod.ts", import.meta.url));
    deepStrictEqual(
      [...text.matchAll(/from "([^"]*\/_[^"]*)"/g)].map((m) => m[1]),
      [],
    );
  });
});
