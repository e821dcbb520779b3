/**
 * The default export: the active branch as the model sees it on resume,
 * exactly `buildContext().messages` of a windowed open (memory: the window).
 *
 * @module
 */

import type { ContextMessage } from "../context/messages.ts";
import { Session } from "../session/session.ts";
import type { ExportJob, JobResult } from "./_job.ts";
import { writeThrough } from "./_job.ts";
import { IssueTally, MetaCollector } from "./_meta.ts";

/**
 * Where the last `n` turns start: a turn starts at a user message.
 *
 * @example Two turns of three
 * ```ts
 * import { lastTurnsStart } from "./_active.ts";
 * import type { ContextMessage } from "../context/messages.ts";
 * const m = (role: string) => ({ role }) as unknown as ContextMessage;
 * const messages = [m("compactionSummary"), m("user"), m("assistant"), m("user"), m("user")];
 * console.assert(lastTurnsStart(messages, 2) === 3);
 * console.assert(lastTurnsStart(messages, 9) === 0);
 * ```
 *
 * @param messages The context's messages.
 * @param n How many turns; undefined for all.
 * @returns The index of the first message kept.
 */
export function lastTurnsStart(
  messages: readonly ContextMessage[],
  n: number | undefined,
): number {
  if (n === undefined) return 0;
  let seen = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.role === "user" && ++seen === n) return i;
  }
  return 0;
}

/**
 * Export the active branch (or its last `last` turns).
 *
 * @param job The export.
 * @param last How many turns, from the end; undefined for all.
 * @returns What was written.
 */
export async function exportActive(
  job: ExportJob,
  last: number | undefined,
): Promise<JobResult> {
  await using session = await Session.open(job.path, {
    resolveBlobs: false, // read one at a time as they are written
    ...(job.dataDir === undefined ? {} : { dataDir: job.dataDir }),
  });
  const ctx = session.buildContext();
  const from = lastTurnsStart(ctx.messages, last);
  const messages = ctx.messages.slice(from);
  let turn = ctx.messages.slice(0, from).filter((m) => m.role === "user")
    .length;
  const meta = new MetaCollector();
  for (const model of Object.values(ctx.models)) meta.model(model);
  for (const m of messages) meta.message(m);
  const entries = session.windowStats().retained;
  const sink = await job.openSink({
    title: session.title,
    sessionId: session.header.id,
    cwd: session.header.cwd,
    models: meta.models,
    first: meta.first,
    last: meta.last,
    messages: messages.length,
    entries,
    scope: last === undefined
      ? "the active branch"
      : `the last ${
        last === 1 ? "turn" : `${last} turns`
      } of the active branch`,
  });
  const { renderer } = job;
  const tally = new IssueTally();
  for (const issue of session.issues) tally.add(issue);
  const written = await writeThrough(sink, async () => {
    for (const [i, m] of messages.entries()) {
      if (m.role === "user") await sink.write(renderer.turn(++turn));
      await sink.write(await renderer.message(m));
      job.progress(i + 1, messages.length, "messages");
    }
    return await sink.finish({
      issues: tally.counts,
      missingImages: job.assets.missing,
    });
  });
  return {
    written,
    messages: messages.length,
    entries,
    branches: 0,
    issues: tally.counts,
  };
}
