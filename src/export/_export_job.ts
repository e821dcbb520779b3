/**
 * The rendering half of {@linkcode exportSession}: once `export.ts` has
 * checked the options and the output, this module renders the pages. It
 * is imported on the first export, so that importing the library does not
 * load the renderers (Markdown, highlighting, diffs) it uses.
 *
 * @module
 */

import type { SessionContext } from "../context/context.ts";
import type { ContextMessage } from "../context/messages.ts";
import type { SessionEntry } from "../format/entries.ts";
import { Session } from "../session/session.ts";
import {
  type ExportJob,
  type Format,
  type JobResult,
  renderMessage,
} from "./_document.ts";
import { CallGroup } from "./_call_group.ts";
import { htmlFormat } from "./_html.ts";
import { MARKDOWN } from "./_markdown.ts";
import { assistantModel, MetaCollector } from "./_meta.ts";
import { activeOutline, branchAsItHappened } from "./_outline.ts";

export { exportTree } from "./_tree.ts";

/**
 * The page format of an export.
 *
 * @param name `md` or `html`.
 * @returns Its format.
 */
export async function pageFormat(name: "md" | "html"): Promise<Format> {
  return name === "md" ? MARKDOWN : await htmlFormat();
}

/**
 * The active branch (or its last `last` turns) as it happened: every
 * message of the path from a compaction's summary and kept window on (as
 * the context has them), aborted and failed turns with their badge, their
 * tool calls and results, and model changes as notes. What the model is
 * given on resume, the turns the context's hygiene drops left out, is
 * `cli context`. A windowed open, so memory is the window's. Each message
 * is shown with its entry (its anchor, its usage); an assistant's tool
 * results are shown under its calls. With `at`, the branch as it was at
 * that entry: the path from the root to it, as if it were the leaf (the
 * whole file is read: it may be off the active path, outside the window).
 */
export async function exportActive(
  job: ExportJob,
  last: number | undefined,
  at?: string,
): Promise<JobResult> {
  const session = await Session.open(job.path, {
    resolveBlobs: false, // read one at a time as they are written
    ...(job.dataDir === undefined ? {} : { dataDir: job.dataDir }),
    // An entry off the active path is outside the window: read it all.
    ...(at === undefined ? {} : { window: false }),
  });
  try {
    if (at !== undefined && !session.entries.some((e) => e.id === at)) {
      throw new Error(
        `Cannot export "${job.path}" at "${at}": no entry has that id`,
      );
    }
    const ctx = session.buildContext(at === undefined ? {} : { leafId: at });
    const branch = branchAsItHappened(session, at);
    const from = lastTurnsStart(
      branch.map((s) => "m" in s ? s.m : undefined),
      last,
    );
    const shown = branch.slice(from);
    let turn = branch.slice(0, from).filter((s) =>
      "m" in s && s.m.role === "user"
    ).length;
    const meta = new MetaCollector();
    _countCalls(
      session,
      ctx,
      last === undefined ? undefined : shown[0]?.entry,
      meta,
    );
    for (const model of Object.values(ctx.models)) meta.model(model);
    let messages = 0;
    for (const s of shown) {
      if (!("m" in s)) continue;
      meta.message(s.m);
      messages++;
    }
    for (const issue of session.issues) meta.issue(issue);
    const entries = session.windowStats().retained;
    const turns = last === 1 ? "turn" : `${last} turns`;
    const labels = ctx.labels;
    const pages = job.open({
      title: session.title,
      sessionId: session.header.id,
      cwd: session.header.cwd,
      ...meta.seen,
      messages,
      entries,
      scope: last === undefined
        ? "the active branch"
        : `the last ${turns} of the active branch`,
      usage: meta.usage,
      labels: shown.flatMap(({ entry }) =>
        entry !== undefined && Object.hasOwn(labels, entry.id)
          ? [{ id: entry.id, label: labels[entry.id]! }]
          : []
      ),
      outline: activeOutline(shown, labels),
    });
    try {
      const { format, assets } = job;
      for (let i = 0; i < shown.length; i++) {
        const s = shown[i]!;
        if (!("m" in s)) {
          await pages.write(format.note(s.note));
          continue;
        }
        if (s.m.role === "user") await pages.write(format.turn(++turn));
        // The tool results right after an assistant's message go under its calls.
        const group = new CallGroup(s);
        let j = i + 1;
        while (j < shown.length) {
          const r = shown[j]!;
          if (!("m" in r) || !group.take(r)) break;
          j++;
        }
        await pages.write(
          await renderMessage(s, format, assets, { labels }, group.results),
        );
        i = j - 1;
        job.progress(j, shown.length, "messages");
      }
      const { issues } = meta;
      const written = await pages.finish({
        issues,
        missingImages: assets.missing,
      });
      return { written, messages, entries, branches: 0, issues };
    } finally {
      await pages?.[Symbol.asyncDispose]();
    }
  } finally {
    await session?.[Symbol.asyncDispose]();
  }
}

/**
 * Count the model calls of the active path's entries in memory, and note
 * their models (a model change's too), from the first message shown on
 * (every call of the branch without `last`: those a compaction took out of
 * the context too).
 */
function _countCalls(
  session: Session,
  ctx: SessionContext,
  first: SessionEntry | undefined,
  meta: MetaCollector,
): void {
  let counting = first === undefined;
  for (const step of ctx.activePath) {
    const e = session.getEntry(step.id);
    if (e === undefined) {
      if (counting) meta.unread();
      continue;
    }
    if (e === first) counting = true;
    if (!counting) continue;
    meta.call(e);
    if (e.type === "model_change") meta.model(e.model);
    if (e.type === "message") meta.model(assistantModel(e.message));
  }
}

/**
 * Where the last `n` turns start: a turn starts at a user message.
 *
 * @param messages The messages shown (undefined: a note).
 * @param n How many turns; undefined for all.
 * @returns The index of the first message kept.
 */
export function lastTurnsStart(
  messages: readonly (Pick<ContextMessage, "role"> | undefined)[],
  n: number | undefined,
): number {
  if (n === undefined) return 0;
  let seen = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role === "user" && ++seen === n) return i;
  }
  return 0;
}
