/**
 * `cli demo`: a tour on sessions that need nothing installed.
 *
 * @module
 */

import { join } from "node:path";
import { type CliIo, CliUsageError, flagValue, parseArgs } from "./cli_io.ts";
import { renderMessage } from "./cli_context.ts";
import { Session } from "./session.ts";

const _HELP = `Usage: cli demo [--data-dir D]

Copy the omp-written sample sessions that ship with the package into a data
dir (a fresh temporary one by default), open each, and print a table and the
context of the main session.
`;

const _SAMPLES = new URL("../fixtures/omp/", import.meta.url);

/**
 * Run `demo`.
 *
 * @param args The command's arguments.
 * @param io Where output goes.
 * @returns The exit code.
 */
export async function runDemo(args: string[], io: CliIo): Promise<number> {
  const parsed = parseArgs(args, { "data-dir": true, help: false });
  if (parsed.flags.has("help")) {
    io.stdout(_HELP);
    return 0;
  }
  if (parsed.positional.length > 0) {
    throw new CliUsageError(
      `demo: unexpected argument "${parsed.positional[0]}"`,
    );
  }
  const dataDir = flagValue(parsed, "data-dir") ??
    await Deno.makeTempDir({ prefix: "xdev-demo-" });
  const sessions = join(dataDir, "sessions", "-src-lumen-api");
  await Deno.mkdir(sessions, { recursive: true, mode: 0o700 });
  await Deno.mkdir(join(dataDir, "blobs"), { recursive: true, mode: 0o700 });
  const files: string[] = [];
  for await (const e of Deno.readDir(_SAMPLES)) {
    if (e.name.endsWith(".jsonl")) files.push(e.name);
    if (e.name === "blobs") {
      for await (const b of Deno.readDir(new URL("blobs/", _SAMPLES))) {
        await Deno.copyFile(
          new URL(`blobs/${b.name}`, _SAMPLES),
          join(dataDir, "blobs", b.name),
        );
      }
    }
  }
  files.sort();
  io.stdout(`Sample sessions copied to ${dataDir}\n\n`);
  const rows: string[][] = [["file", "entries", "messages", "model", "title"]];
  for (const name of files) {
    const path = join(sessions, name);
    await Deno.copyFile(new URL(name, _SAMPLES), path);
    await using s = await Session.open(path, { dataDir });
    const ctx = s.buildContext();
    rows.push([
      name,
      String(s.entries.length),
      String(ctx.messages.length),
      ctx.model ?? "-",
      s.title ?? "(untitled)",
    ]);
  }
  io.stdout(`${_table(rows, io.columns)}\n`);
  const main = join(sessions, "s1-main.jsonl");
  await using s = await Session.open(main, { dataDir });
  const ctx = s.buildContext();
  io.stdout(
    `\nContext of s1-main.jsonl (${ctx.messages.length} messages, ~${ctx.tokens} tokens), first three:\n`,
  );
  for (const m of ctx.messages.slice(0, 3)) {
    io.stdout(`\n${renderMessage(m)}\n`);
  }
  io.stdout(`\nTry: deno task cli context ${main}\n`);
  return 0;
}

function _table(rows: string[][], columns: number): string {
  const widths = rows[0]!.map((_, i) =>
    Math.max(...rows.map((r) => [...r[i]!].length))
  );
  return rows.map((r) =>
    [
      ...r.map((cell, i) => i === r.length - 1 ? cell : cell.padEnd(widths[i]!))
        .join("  "),
    ]
      .slice(0, Math.max(columns, 40)).join("")
  ).join("\n");
}
