/**
 * Bidirectional controls (overrides, embeddings, isolates, marks) in every
 * field of a session that a command prints: none reaches a terminal, from
 * any command's text output.
 */
import { equal, ok } from "node:assert/strict";
import { join } from "node:path";
import { cliInProcess } from "../_cli.ts";
import { tempDir } from "../_session_files.ts";

/** Every bidirectional control: embeddings and overrides, isolates, marks. */
const BIDI_TEXT =
  "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c";
const BIDI = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/;
const B = `zanzibar${BIDI_TEXT}`;

/** A version 3 session holding {@linkcode B} in each field a command shows. */
function bidiSession(): string {
  const base = {
    type: "title",
    v: 1,
    title: `T ${B}`,
    source: "user",
    updatedAt: "2026-10-01T09:00:00.000Z",
    pad: "",
  };
  const width = new TextEncoder().encode(JSON.stringify(base)).length;
  const slot = JSON.stringify({ ...base, pad: " ".repeat(255 - width) });
  let n = 0;
  const at = (parentId: string | null) => ({
    id: (++n).toString(16).padStart(8, "0"),
    parentId,
    timestamp: `2026-10-01T09:00:0${n % 10}.000Z`,
  });
  const id = (k: number) => k.toString(16).padStart(8, "0");
  const usage = { input: 10, output: 5, totalTokens: 15, cost: { total: 1 } };
  const entries = [
    { type: "model_change", ...at(null), model: `anthropic/m${B}` },
    { type: "thinking_level_change", ...at(id(1)), thinkingLevel: `high${B}` },
    {
      type: "message",
      ...at(id(2)),
      message: { role: "user", content: [{ type: "text", text: `hi ${B}` }] },
    },
    // An abandoned branch, summarized by the entry after it.
    {
      type: "message",
      ...at(id(3)),
      message: { role: "user", content: `gone ${B}` },
    },
    {
      type: "branch_summary",
      ...at(id(3)),
      fromId: id(3),
      summary: `branch ${B}`,
    },
    {
      type: "message",
      ...at(id(5)),
      message: {
        role: "assistant",
        content: [
          { type: "thinking", thinking: `think ${B}` },
          { type: "text", text: `ok ${B}` },
          {
            type: "toolCall",
            id: "c1",
            name: `read${B}`,
            arguments: { path: `/a/${B}` },
          },
        ],
        api: "anthropic-messages",
        provider: `p${B}`,
        model: `m${B}`,
        usage,
        stopReason: "toolUse",
      },
    },
    {
      type: "message",
      ...at(id(6)),
      message: {
        role: "toolResult",
        toolCallId: "c1",
        toolName: `read${B}`,
        content: [{ type: "text", text: `out ${B}` }],
        isError: false,
      },
    },
    { type: "label", ...at(id(7)), targetId: id(6), label: `lab${B}` },
    { type: "custom", ...at(id(8)), customType: `ct${B}`, data: { x: B } },
    {
      type: "custom_message",
      ...at(id(9)),
      customType: `cm${B}`,
      content: `said ${B}`,
      display: true,
    },
    {
      type: "compaction",
      ...at(id(10)),
      summary: `summary ${B}`,
      firstKeptEntryId: id(6),
      tokensBefore: 100,
    },
    {
      type: "model_usage",
      ...at(id(11)),
      purpose: `title${B}`,
      api: "anthropic-messages",
      provider: `p${B}`,
      model: `m${B}`,
      usage,
      stopReason: "stop",
    },
    { type: "title_change", ...at(id(12)), title: `T ${B}`, source: "user" },
    { type: `kind${B}`, ...at(id(13)), note: B },
    {
      type: "message",
      ...at(id(14)),
      message: { role: "user", content: `last ${B}` },
    },
  ];
  const header = {
    type: "session",
    version: 3,
    id: "01a0f000-0000-7000-8000-00000000cccc",
    timestamp: "2026-10-01T09:00:00.000Z",
    cwd: `/home/${B}/app`,
  };
  return [slot, header, ...entries].map((l) =>
    typeof l === "string" ? l : JSON.stringify(l)
  ).join("\n") + "\n";
}

Deno.test("cli commands print no bidirectional control from a session, in text output", async (t) => {
  await using dir = await tempDir();
  const data = join(dir.path, "data");
  const folder = join(data, "sessions", "-home-app");
  await Deno.mkdir(folder, { recursive: true });
  await Deno.mkdir(join(data, "blobs"));
  const file = join(folder, `s${BIDI_TEXT}.jsonl`);
  await Deno.writeTextFile(file, bidiSession());
  const d = ["--data-dir", data];
  const out = join(dir.path, "out");
  await Deno.mkdir(out);
  const runs: string[][] = [
    ["list", ...d, "--all"],
    ["list", ...d, "--all", "--no-index"],
    ["index", ...d],
    ["show", file, ...d],
    ["show", file, ...d, "--full"],
    ["context", file, ...d],
    ["context", file, ...d, "--rule", "omp"],
    ["tree", file],
    ["tree", file, "--lineage"],
    ["tail", file, "-n", "50"],
    ["search", "zanzibar", ...d],
    ["search", "zanzibar", ...d, "--no-index"],
    ["stats", file, ...d],
    ["stats", folder, ...d],
    ["usage", ...d],
    ...["day", "session", "model", "project"].map((by) => [
      "usage",
      ...d,
      "--by",
      by,
    ]),
    ["usage", ...d, "--by", "model", "--csv"],
    ["export", file, "--out", join(out, `e${BIDI_TEXT}.md`)],
    ["export", file, "--format", "html", "--out", join(out, "e.html")],
    ["fork", file, "--to", join(out, `f${BIDI_TEXT}{run}.jsonl`)],
    ["fork", file, "--label", `L${BIDI_TEXT}`],
    ["blobs", "verify", ...d],
    ["blobs", "gc", ...d],
  ];
  for (const args of runs) {
    await t.step(args.filter((a) => !a.startsWith("/")).join(" "), async () => {
      for (const isTerminal of [false, true]) {
        // Each run writes its own file where it writes one.
        const each = args.map((a) => a.replace("{run}", `${isTerminal}`));
        const r = await cliInProcess(each, { isTerminal });
        equal(r.code, 0, r.stderr);
        ok(!BIDI.test(r.stdout), JSON.stringify(r.stdout));
        ok(!BIDI.test(r.stderr), JSON.stringify(r.stderr));
      }
    });
  }
  // The text shown is the session's: the controls left it, nothing else.
  const shown = await cliInProcess(["context", file, ...d]);
  ok(shown.stdout.includes("zanzibar"), shown.stdout);
});
