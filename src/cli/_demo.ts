/**
 * `cli demo`: write a realistic set of sessions through the public API, list
 * them, print one context. Needs nothing but a writable temp dir.
 *
 * @module
 */

import { dirname } from "node:path";
import { forkSession } from "../store/fork.ts";
import { listSessions } from "../store/list.ts";
import { type Command, defineCommand } from "./_command.ts";
import { attempt, checkFolder } from "./_failure.ts";
import { openSession } from "./_open_session.ts";
import { renderMessage } from "./_context.ts";
import {
  writeMainSession,
  writeResetSession,
  writeSubagentSession,
} from "./_demo_sessions.ts";
import { formatBytes, sanitize } from "./_format.ts";
import { formatTable } from "./_table.ts";

const HELP = `Usage: cli demo [--data-dir D]

Write a realistic set of sessions through the library's public API: a main
session with every entry type, a rename, a branch back with a summary and an
image blob; a fork of it; a subagent child in its artifacts folder; a short
session with a reset. Then list them and print the main session's context.
Without --data-dir a fresh temporary data dir is used (and named).
`;

/** What the demo wrote. */
export interface DemoResult {
  /** The data dir. */
  dataDir: string;
  /** The files written: main, fork, subagent, reset. */
  files: { main: string; fork: string; subagent: string; reset: string };
}

const _T0 = Date.parse("2026-11-30T09:00:00.000Z");

/** `cli demo`. */
export const demo: Command = defineCommand({
  name: "demo",
  help: HELP,
  flags: { "data-dir": "value" },
  run: async (call, io) => {
    const given = call.value("data-dir");
    if (given !== undefined) await checkFolder(given, "open the data dir");
    const dataDir = given ?? await Deno.makeTempDir({ prefix: "xdev-demo-" });
    io.stdout(
      `Writing demo sessions to ${dataDir}${
        given === undefined ? " (a fresh temporary data dir)" : ""
      }\n\n`,
    );
    const { files } = await attempt(
      `write the demo sessions to "${dataDir}"`,
      () => writeDemo(dataDir),
    );

    const sessions = await listSessions(dataDir);
    io.stdout(
      `listSessions() finds ${sessions.length} sessions (the subagent child is not listed):\n`,
    );
    const rows = sessions.map((s) => [
      s.id.slice(0, 13),
      s.title ?? "(untitled)",
      s.parentSession?.slice(0, 13) ?? "-",
      formatBytes(s.size),
    ]);
    const columns = [
      { header: "id" },
      { header: "title", shrink: "end" as const },
      { header: "parent", optional: true },
      { header: "size", right: true },
    ];
    io.stdout(`${formatTable(columns, rows, io.columns)}\n`);

    await using main = await openSession(files.main);
    const ctx = main.buildContext();
    io.stdout(
      `\n${
        sanitize(
          `Context of "${main.title}": ${ctx.messages.length} messages, model ${ctx.model}, thinking ${ctx.thinkingLevel}, ~${ctx.tokens} tokens`,
        )
      }\n`,
    );
    for (const m of ctx.messages) io.stdout(`\n${renderMessage(m)}\n`);
    io.stdout(`\nNext: deno task cli context ${files.main} --json\n`);
    return 0;
  },
});

/**
 * Write the demo sessions into `dataDir` through the public API.
 *
 * @param dataDir The data dir (sessions and blobs go under it).
 * @returns The files written.
 */
export async function writeDemo(dataDir: string): Promise<DemoResult> {
  let tick = 0;
  const now = (): Date => new Date(_T0 + 7_000 * tick++);
  const main = await writeMainSession(dataDir, now);
  const subagent = await writeSubagentSession(dataDir, main, now);
  // A fork of the main session.
  const fork = await forkSession(main, undefined, {
    label: "CRLF fix, second try",
  });
  const reset = await writeResetSession(dataDir, now);
  await Deno.stat(dirname(fork.path)); // all in place
  return { dataDir, files: { main, fork: fork.path, subagent, reset } };
}
