/**
 * `cli context`: what the model sees when a session resumes; the one way
 * the CLI opens a session file and renders a message (`show`, `tail` and
 * `demo` do so through it).
 *
 * @module
 */

import { contextToJson } from "../context/context_json.ts";
import type { ContextMessage } from "../context/messages.ts";
import type { ContentBlock } from "../format/messages.ts";
import type { SessionOpenOptions } from "../session/options.ts";
import { SessionIndex } from "../index/session_index.ts";
import { Session } from "../session/session.ts";
import { findDataDir } from "../store/data_dir.ts";
import { attempt, type Command, defineCommand, writeJson } from "./_command.ts";
import { sanitize, sanitizeLines } from "./_format.ts";
import { indexOptionsOf } from "./_data_dirs.ts";
import { indexWarnings } from "./_index.ts";
import { entryToStopAt, resolveSessionArg } from "./_session_arg.ts";

const ABOUT =
  `Rebuild the context of a session: the messages the model sees on resume,
the models, the thinking level and the labels. The session is a file, a
session id or the start of one, or SESSION#ENTRY (as search prints it).
`;

/** `cli context`. */
export const command: Command = defineCommand({
  name: "context",
  summary: "Rebuild what the model sees when the session resumes.",
  about: ABOUT,
  flags: {
    at: {
      value: "ENTRY",
      help:
        "the context as it was at that entry: the path from the root to it, as if it were the leaf (SESSION#ENTRY too)",
    },
    "data-dir": {
      value: "D",
      help:
        "where blobs/ lives, and where an id is looked up (default: the nearest ancestor of the file that holds blobs/; ids: every data dir of xdev, omp and pi)",
    },
    json: {
      help:
        "print the fields of omp's context.json, normalized the same way, instead of a transcript",
    },
    rule: {
      value: "R",
      help:
        "xdev (default) or omp: how a compaction reaching back past a reset is settled",
    },
  },
  args: ["<session>"],
  run: async (call, io) => {
    const rule = call.value("rule") ?? "xdev";
    if (rule !== "xdev" && rule !== "omp") {
      throw call.usageError(`--rule must be xdev or omp, not "${rule}"`);
    }
    // --json is for comparing with omp: walk the whole active path.
    const json = call.has("json");
    const onWarning = indexWarnings(io);
    const arg = await resolveSessionArg(call.arg(), {
      dataDirs: call.values("data-dir"),
      onWarning,
    });
    const at = entryToStopAt(arg, call.value("at"), call.name);
    const session = await openSession(arg.path, {
      dataDir: call.value("data-dir") ?? arg.dataDir,
      checkpoints: !json,
      // An entry off the active path is outside the window: read it all.
      ...(at === undefined ? {} : { window: false }),
      onWarning,
    });
    try {
      if (at !== undefined) assertEntry(session, at);
      const ctx = session.buildContext({
        resetRule: rule,
        ...(at === undefined ? {} : { leafId: at }),
      });
      if (json) {
        writeJson(
          io,
          await contextToJson(ctx, session.title, session.titleSource),
        );
        return 0;
      }
      const head = [
        `# ${session.title ?? "(untitled)"}`,
        `model ${ctx.model ?? "-"} · thinking ${ctx.thinkingLevel} · leaf ${
          ctx.leafId ?? "-"
        } · ${ctx.messages.length} messages · ~${ctx.tokens} tokens`,
      ];
      if (ctx.pathEnd !== "root") {
        head.push(`(the path stops early: ${ctx.pathEnd})`);
      }
      for (const issue of session.issues) head.push(`! ${issue.message}`);
      io.stdout(`${head.map(sanitize).join("\n")}\n`);
      for (const m of ctx.messages) io.stdout(`\n${renderMessage(m)}\n`);
      return 0;
    } finally {
      await session?.[Symbol.asyncDispose]();
    }
  },
});

/**
 * Open a session file (never modifying it), or fail with `Cannot open
 * "<file>": <state>`: `no such file or directory`, `it is a folder`, or the
 * loader's own words. Where the file's data dir has a session index, it
 * opens through it (a file without checkpoints is read only from where the
 * index's row of it ends); an index that cannot be used (damaged,
 * read-only, locked) is passed by, with a warning to `onWarning`.
 *
 * @param file The session file.
 * @param options As for `Session.open`; `dataDir` may be undefined
 * (`--data-dir` not given); where the index's warnings go (default: nowhere).
 * @returns The session; the caller disposes of it.
 * @throws {Error} When it cannot be opened.
 */
export function openSession(
  file: string,
  options: Omit<SessionOpenOptions, "dataDir"> & {
    dataDir?: string | undefined;
    onWarning?: ((message: string) => void) | undefined;
  } = {},
): Promise<Session> {
  const { dataDir, onWarning, ...rest } = options;
  const opts = dataDir === undefined ? rest : { ...rest, dataDir };
  return attempt(`open "${file}"`, async () => {
    const indexed = dataDir ?? await findDataDir(file);
    const index = indexed === undefined
      ? undefined
      : await SessionIndex.tryOpen(indexed, {
        ...await indexOptionsOf(indexed),
        create: false,
        onWarning: onWarning ?? (() => {}),
      });
    try {
      return await (index?.openSession(file, opts) ?? Session.open(file, opts));
    } finally {
      index?.[Symbol.dispose]();
    }
  });
}

/**
 * Fail with `Cannot find the entry "<id>" in "<file>"` unless the session
 * (read whole) holds it.
 *
 * @param session The session, opened with `window: false`.
 * @param entryId The entry.
 * @throws {Error} When it holds no such entry.
 */
export function assertEntry(session: Session, entryId: string): void {
  if (session.entries.some((e) => e.id === entryId)) return;
  throw new Error(
    `Cannot find the entry "${entryId}" in "${session.path}": no entry has that id`,
  );
}

/**
 * A message as readable text, safe for a terminal: its heading passes
 * through {@linkcode sanitize}, its text through {@linkcode sanitizeLines}
 * (line breaks kept, every other control character a space).
 *
 * @param message A context message.
 * @returns A heading line and the message's text.
 */
export function renderMessage(message: ContextMessage): string {
  const [heading, text] = _parts(message);
  return `── ${sanitize(heading)} ──\n${sanitizeLines(text)}`;
}

function _parts(message: ContextMessage): [string, string] {
  const m = message as unknown as Record<string, unknown>;
  switch (m.role) {
    case "compactionSummary":
      return ["summary of earlier history", String(m.summary)];
    case "branchSummary":
      return ["summary of an abandoned branch", String(m.summary)];
    case "custom":
      return [
        `${m.customType}${m.display ? "" : " (hidden)"}`,
        _content(m.content),
      ];
    case "assistant":
      return [`assistant (${m.provider}/${m.model})`, _content(m.content)];
    case "toolResult":
      return [
        `${m.toolName} result${m.isError ? " (error)" : ""}`,
        _content(m.content),
      ];
    default:
      return [String(m.role), _content(m.content)];
  }
}

function _content(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return (content as ContentBlock[]).map((b) => {
    switch (b.type) {
      case "text":
        return String(b.text);
      case "thinking":
        return `(thinking) ${b.thinking}`;
      case "toolCall":
        return `→ ${b.name}(${JSON.stringify(b.arguments)})`;
      case "image": {
        const data = String(b.data);
        return data.startsWith("blob:")
          ? `[image ${b.mimeType}, blob missing]`
          : `[image ${b.mimeType}, ${Math.floor(data.length * 3 / 4)} bytes]`;
      }
      default:
        return `[${b.type}]`;
    }
  }).join("\n");
}
