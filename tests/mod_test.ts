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

// A new export is a deliberate change: add it here in the same commit. A
// dropped one is listed in CHANGELOG.md ("Dropped from the public surface")
// with the module it lives in now or what to use instead.
const VALUES = [
  "BlobStore",
  "EntryAppender",
  "LineStream",
  "SESSION_VERSION",
  "Session",
  "SessionEntryStream",
  "SessionIndex",
  "SessionReader",
  "SessionSyntaxError",
  "SessionTree",
  "TITLE_SLOT_BYTES",
  "canonicalCwdSlug",
  "contextToJson",
  "exportSession",
  "findDataDir",
  "forkSession",
  "isEntryOfType",
  "listSessions",
  "outlineTree",
  "parseBlobRef",
  "resolveDataDir",
  "searchSessions",
  "sessionsDir",
  "usageReport",
  "watchSession",
];
const TYPES = [
  "AgentMessage",
  "AppendOptions",
  "AssistantMessage",
  "BlobPutOptions",
  "BlobStoreOptions",
  "BranchSummaryEntry",
  "BranchSummaryMessage",
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
  "Line",
  "LineLimits",
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
  "SessionFromStreamOptions",
  "SessionHeader",
  "SessionIndexOptions",
  "SessionInfo",
  "SessionInitEntry",
  "SessionOpenOptions",
  "SessionRecord",
  "SessionRecordOf",
  "SessionSyntaxErrorOptions",
  "SessionTreeNode",
  "SessionTreeReadOptions",
  "SessionWriteOptions",
  "StopReason",
  "TextBlock",
  "ThinkingBlock",
  "ThinkingLevelChangeEntry",
  "TitleChangeEntry",
  "TitleSlot",
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

/** Fails naming what mod.ts exports beyond `expected` and what it lacks. */
function sameSurface(actual: string[], expected: string[]): void {
  const extra = actual.filter((n) => !expected.includes(n));
  const missing = expected.filter((n) => !actual.includes(n));
  deepStrictEqual(
    { extra, missing },
    { extra: [], missing: [] },
    `mod.ts exports ${JSON.stringify(extra)} not listed here, and lacks ` +
      `${JSON.stringify(missing)}: list a new export in this file, and a ` +
      `dropped one in CHANGELOG.md with where it lives now`,
  );
  deepStrictEqual(actual, [...new Set(actual)], "a name is exported twice");
}

Deno.test("mod.ts exports exactly the public surface", async (t) => {
  await t.step("the values", () => {
    sameSurface(Object.keys(mod).sort(), VALUES);
  });
  await t.step("the values and the types", async () => {
    sameSurface(await exportedNames(), [...VALUES, ...TYPES].sort());
  });
  await t.step(
    // 0.2.0 cut the core to 109 names; the capabilities since grew it to 139.
    // 0.4.0 (issue 29) took it back to 110: the helpers that are internal
    // details left, see CHANGELOG.md for each and where it lives now.
    // Issue 31 added two for the API a pi harness calls: SessionReader (the
    // read half of Session, its base class) and SessionTreeNode (getTree).
    "a surface a user can hold in their head: at most 112 names",
    async () => {
      const count = (await exportedNames()).length;
      ok(
        count <= 112,
        `mod.ts exports ${count} names, over 112: drop one (and list it in ` +
          `CHANGELOG.md) before adding another`,
      );
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
