/**
 * `cli tree`: a session's entry tree as an outline.
 *
 * @module
 */

import type { SessionInfo } from "../store/session_info.ts";
import { type SessionLineage, sessionLineage } from "../tree/lineage.ts";
import { outlineTree, type TreeFilter, type TreeRow } from "../tree/outline.ts";
import { SessionTree, type TreeNode } from "../tree/session_tree.ts";
import {
  attempt,
  type Call,
  type Command,
  defineCommand,
  writeJson,
} from "./_command.ts";
import { plural, sanitize, textWidth, truncate } from "./_format.ts";
import { type CliIo, colorOn } from "./_io.ts";
import { entryToStopAt, resolveSessionArg } from "./_session_arg.ts";
import { userPathOf } from "./_user_path.ts";

const ABOUT =
  `Draw the entry tree of a session (a file, a session id or the start of
one): branch points, labels, the active path (marked •) and the leaf, one
line per entry with its id and the start of its text; an id is what
"context --at", "export --at" and "fork --at" take. A branch goes on in its
own column, as in "git log --graph": the active path reads straight down
the first one, and the branches left behind hang off it ("├─ "), nested at
most 12 levels deep. Long linear runs are folded ("… 120 entries …"). Only
the first bytes of each line are read: a huge session draws in about the
time of one pass over its bytes.
`;

/** The filters, each once: the type checks that none is missing. */
const _FILTERS = Object.keys(
  {
    default: true,
    "no-tools": true,
    user: true,
    labeled: true,
    all: true,
  } satisfies Record<TreeFilter, true>,
) as TreeFilter[];

type _Flags =
  | "at"
  | "filter"
  | "depth"
  | "fold"
  | "lineage"
  | "data-dir"
  | "json";

/** `cli tree`. */
export const command: Command = defineCommand<_Flags>({
  name: "tree",
  summary: "The entry tree as an outline: branches, labels, the active path.",
  about: ABOUT,
  flags: {
    at: {
      value: "ENTRY",
      help:
        "draw the tree as it was at that entry: the path from the root to it marked as the active one (SESSION#ENTRY too)",
    },
    filter: {
      value: "F",
      help:
        "default (hide settings and metadata entries), no-tools (hide tool results and tool-only turns too), user (user messages only), labeled, all",
    },
    depth: {
      value: "N",
      help:
        "open at most N levels of side branches; deeper ones are summarized (the branch that goes on is always drawn)",
    },
    fold: {
      value: "N",
      help: "fold linear runs longer than N entries (default 10; 0: never)",
    },
    lineage: {
      help:
        "add the fork chain: the sessions this one was forked or branched from, and those forked from it in its data dir",
    },
    "data-dir": {
      value: "D",
      help:
        "the data dir --lineage searches and an id is looked up in (default: the one holding the file; ids: every data dir of xdev, omp and pi)",
    },
    json: {
      help:
        "print the entries the filter shows as objects (id, parentId, type, role, preview, label, onActivePath, children) instead of an outline; --depth and --fold do not apply",
    },
  },
  args: ["<session>"],
  run: async (call, io) => {
    const arg = await resolveSessionArg(call.arg(), {
      dataDirs: call.values("data-dir"),
    });
    const at = entryToStopAt(arg, call.value("at"), call.name);
    const file = arg.path;
    const filter = _filter(call);
    const depth = _number(call, "depth", Infinity);
    const foldAfter = _number(call, "fold", 10);
    const lazy = !call.has("json") && filter !== "no-tools";
    const t = await attempt(
      `read the tree of "${file}"`,
      // The outline reads the previews of the rows it draws only; --json and
      // no-tools (which needs every turn's content) read them all.
      () =>
        SessionTree.read(file, {
          previews: !lazy,
          ...(at === undefined ? {} : { leafId: at }),
        }),
    );
    const dataDir = userPathOf(call.value("data-dir")) ?? arg.dataDir;
    const lineage = call.has("lineage")
      ? await attempt(
        `read the lineage of "${file}"`,
        () => sessionLineage(file, dataDir === undefined ? {} : { dataDir }),
      )
      : undefined;
    if (call.has("json")) {
      writeJson(io, {
        path: file,
        title: t.title ?? null,
        leafId: t.leafId,
        filter,
        nodes: _shown(t, filter).map(_json),
        issues: t.issues,
        ...(lineage === undefined ? {} : { lineage }),
      });
      return 0;
    }
    const outline = { filter, depth, foldAfter };
    io.stdout(`${await _outline(file, t, outline, lineage, io)}\n`);
    return 0;
  },
});

/** The outline's lines: the lineage, the heading, the damage, the rows. */
async function _outline(
  file: string,
  t: SessionTree,
  options: { filter: TreeFilter; depth: number; foldAfter: number },
  lineage: SessionLineage | undefined,
  io: CliIo,
): Promise<string> {
  const paint = _painter(io);
  const out: string[] = [];
  if (lineage !== undefined) out.push(..._lineageLines(lineage, paint), "");
  out.push(paint.bold(truncate(sanitize(_heading(t)), io.columns)));
  for (const issue of t.issues) out.push(`! ${sanitize(issue.message)}`);
  const rows = outlineTree(t, options);
  const drawn = rows.flatMap((r) => r.kind === "entry" ? [r.node.index] : []);
  await attempt(`read the tree of "${file}"`, () => t.readPreviews(drawn));
  for (const row of rows) {
    const fresh = row.kind === "entry"
      ? { ...row, node: t.node(row.node.index) }
      : row;
    out.push(_row(fresh, paint, io.columns));
  }
  return out.join("\n");
}

function _filter(call: Call<_Flags>): TreeFilter {
  const value = call.value("filter") ?? "default";
  if (!(_FILTERS as string[]).includes(value)) {
    throw call.usageError(
      `--filter must be one of ${_FILTERS.join(", ")}, not "${value}"`,
    );
  }
  return value as TreeFilter;
}

function _number(
  call: Call<_Flags>,
  flag: "depth" | "fold",
  def: number,
): number {
  const value = call.value(flag);
  if (value === undefined) return def;
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n)) {
    throw call.usageError(`--${flag} must be a whole number, not "${value}"`);
  }
  return n;
}

function _shown(t: SessionTree, filter: TreeFilter): TreeNode[] {
  const out: TreeNode[] = [];
  for (let i = 0; i < t.size; i++) if (t.shows(i, filter)) out.push(t.node(i));
  return out;
}

function _json(n: TreeNode) {
  return {
    id: n.id,
    parentId: n.parentId,
    type: n.type,
    role: n.role,
    preview: n.preview,
    label: n.label,
    onActivePath: n.onActivePath,
    children: n.children,
  };
}

function _heading(t: SessionTree): string {
  return `# ${t.title ?? "(untitled)"} · ${
    plural(t.size, "entry", "entries")
  } · leaf ${t.leafId ?? "-"}`;
}

/** ANSI styles, or none when output is no terminal (or NO_COLOR is set). */
interface _Paint {
  bold(s: string): string;
  dim(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  cyan(s: string): string;
  magenta(s: string): string;
}

function _painter(io: CliIo): _Paint {
  const on = colorOn(io);
  const style = (open: number, close: number) => (s: string) =>
    on && s !== "" ? `\x1b[${open}m${s}\x1b[${close}m` : s;
  return {
    bold: style(1, 22),
    dim: style(2, 22),
    green: style(32, 39),
    yellow: style(33, 39),
    cyan: style(36, 39),
    magenta: style(35, 39),
  };
}

/** One outline row: the path marker, the drawing, then the entry, cut to the width. */
function _row(row: TreeRow, paint: _Paint, columns: number): string {
  if (row.kind !== "entry") {
    const n = plural(row.entries, "entry", "entries");
    const blank = " ".repeat(_ID_WIDTH + 1);
    if (row.kind === "folded") {
      return `  ${blank}${row.prefix}${paint.dim(`… ${n} …`)}`;
    }
    return `  ${blank}${row.prefix}${
      paint.dim(
        `… ${plural(row.branches, "branch", "branches")}, ${n} (--depth)`,
      )
    }`;
  }
  const n = row.node;
  const marker = n.onActivePath ? paint.green("• ") : "  ";
  const label = n.label === null ? "" : `[${sanitize(n.label)}] `;
  const who = _who(n);
  const leaf = row.leaf ? " ← leaf" : "";
  // Cut the preview to what the line leaves of the width, then colour the
  // parts: escapes are never cut, nor counted.
  const id = `${sanitize(n.id).padEnd(_ID_WIDTH)} `;
  const used = 2 + textWidth(id + row.prefix + label + who + leaf);
  const body = truncate(sanitize(n.preview), Math.max(8, columns - used));
  const colour = n.type !== "message"
    ? paint.dim
    : n.role === "user"
    ? paint.cyan
    : n.role === "assistant"
    ? paint.magenta
    : paint.dim;
  return `${marker}${paint.dim(id)}${row.prefix}${paint.yellow(label)}${
    colour(who)
  }${n.type === "message" ? body : paint.dim(body)}${paint.bold(leaf)}`;
}

/** The width of an entry id (8 hex digits), ids in a column before the drawing. */
const _ID_WIDTH = 8;

/** What a row names before the preview: the role, or the entry's type. */
function _who(n: TreeNode): string {
  if (n.type !== "message") return "· ";
  if (n.role === "toolResult") return "tool ";
  return `${sanitize(n.role ?? "message")}: `;
}

function _lineageLines(l: SessionLineage, paint: _Paint): string[] {
  const line = (s: SessionInfo) =>
    sanitize(`${s.id} ${s.title ?? "(untitled)"} ${s.path}`);
  const out = [paint.bold("lineage")];
  if (l.unresolved !== undefined) {
    out.push(`  ${sanitize(`? ${l.unresolved} (not found)`)}`);
  }
  const chain = [...l.parents].reverse();
  chain.forEach((s, i) => out.push(`  ${"  ".repeat(i)}${line(s)}`));
  const depth = "  ".repeat(chain.length);
  out.push(`  ${depth}${paint.bold(`${line(l.session)} ← this`)}`);
  for (const f of l.forks) out.push(`  ${depth}  ${line(f)}`);
  if (l.dataDir === undefined) {
    out.push("  (no data dir found: forks not searched; --data-dir D)");
  }
  return out;
}
