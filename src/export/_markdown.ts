/**
 * The Markdown export: a heading per turn and per message, the model's own
 * Markdown kept (made inert by `_markdown_text.ts`), thinking, tool calls
 * and tool results in `<details>` blocks (GitHub renders them), code and
 * outputs in fences their content cannot close, images as links.
 *
 * @module
 */

import type { ContextMessage } from "../context/messages.ts";
import type { ContentBlock } from "../format/messages.ts";
import { type Assets, imagesApart } from "./_assets.ts";
import { escapeHtml, escapeMarkdownInline, fenced } from "./_escape.ts";
import { safeMarkdown } from "./_markdown_text.ts";
import {
  damageText,
  displayTime,
  type ExportFooter,
  type ExportMeta,
  messageTime,
} from "./_meta.ts";
import type { BranchInfo, Renderer, Wrapper } from "./_renderer.ts";

/**
 * The Markdown renderer of one export.
 *
 * @param assets Where images go.
 * @returns The renderer.
 */
export function markdownRenderer(assets: Assets): Renderer {
  return {
    format: "md",
    head: _head,
    foot: _foot,
    turn: (n) => `## Turn ${n}\n\n`,
    message: (m) => _message(m, assets),
    note: (text) => `*${escapeMarkdownInline(text)}*\n\n`,
    branch: _branch,
  };
}

function _head(meta: ExportMeta): string {
  const lines = [
    `# ${escapeMarkdownInline(meta.title ?? "Untitled session")}`,
    "",
  ];
  const item = (k: string, v: string) => lines.push(`- **${k}:** ${v}`);
  if (meta.models.length > 0) {
    item(
      meta.models.length === 1 ? "Model" : "Models",
      meta.models.map(escapeMarkdownInline).join(", "),
    );
  }
  if (meta.first !== undefined && meta.last !== undefined) {
    item("First message", displayTime(meta.first));
    item("Last message", displayTime(meta.last));
  }
  item(
    "Exported",
    `${
      escapeMarkdownInline(meta.scope)
    }: ${meta.messages} messages, ${meta.entries} entries read`,
  );
  if (meta.cwd !== undefined) item("Directory", escapeMarkdownInline(meta.cwd));
  if (meta.sessionId !== undefined) {
    item("Session", escapeMarkdownInline(meta.sessionId));
  }
  return `${lines.join("\n")}\n\n`;
}

function _foot(footer: ExportFooter | undefined): string {
  const damage = footer === undefined ? undefined : damageText(footer);
  return damage === undefined
    ? ""
    : `---\n\n*${escapeMarkdownInline(damage)}*\n`;
}

function _branch(info: BranchInfo): Wrapper {
  const what = info.kind === "branch"
    ? "Another branch from here (not on the active path)"
    : "Entries whose parent is missing";
  const when = info.time === undefined ? "" : ` · ${displayTime(info.time)}`;
  return {
    open: `**⑂ ${what}**${when}\n\n`,
    close: "\n",
    reopen: `**⑂ ${what} (continued)**\n\n`,
  };
}

async function _message(m: ContextMessage, assets: Assets): Promise<string> {
  const r = m as Record<string, unknown>;
  const iso = messageTime(m);
  const time = iso === undefined ? "" : ` · ${displayTime(iso)}`;
  const heading = (label: string) => `### ${label}${time}\n\n`;
  switch (m.role) {
    case "user":
      return heading("User") + await _blocks(r.content, assets);
    case "assistant": {
      const model = typeof r.model === "string"
        ? ` · ${escapeMarkdownInline(_model(r))}`
        : "";
      const stop = r.stopReason === "aborted" || r.stopReason === "error"
        ? ` (${r.stopReason})`
        : "";
      let body = await _blocks(r.content, assets);
      if (typeof r.errorMessage === "string" && r.errorMessage !== "") {
        body += `> ${escapeMarkdownInline(r.errorMessage)}\n\n`;
      }
      return heading(`Assistant${model}${stop}`) + body;
    }
    case "toolResult": {
      const name = typeof r.toolName === "string" ? r.toolName : "tool";
      const error = r.isError === true ? " (error)" : "";
      const { images, rest } = imagesApart(r.content);
      return _details(
        `Tool result: ${name}${error}${time}`,
        await _blocks(rest, assets, true),
      ) + await _blocks(images, assets);
    }
    case "compactionSummary":
      return heading("Summary of earlier history") +
        `${safeMarkdown(String(r.summary))}\n\n`;
    case "branchSummary":
      return heading("Summary of an abandoned branch") +
        `${safeMarkdown(String(r.summary))}\n\n`;
    case "custom":
      return heading(escapeMarkdownInline(String(r.customType))) +
        await _blocks(r.content, assets);
    default:
      return heading(escapeMarkdownInline(String(m.role))) +
        (r.content === undefined
          ? `${fenced(JSON.stringify(m, null, 2), "json")}\n\n`
          : await _blocks(r.content, assets));
  }
}

function _model(r: Record<string, unknown>): string {
  return typeof r.provider === "string"
    ? `${r.provider}/${r.model}`
    : String(r.model);
}

/**
 * A `<details>` block: the summary is HTML (escaped; brackets and
 * backticks as references too, for a renderer that would read Markdown in
 * it), the body Markdown.
 */
function _details(summary: string, body: string): string {
  const text = escapeHtml(summary.replace(/\s+/g, " ")).replace(
    /[[\]`]/g,
    (c) => `&#${c.charCodeAt(0)};`,
  );
  return `<details>\n<summary>${text}</summary>\n\n${body}</details>\n\n`;
}

async function _blocks(
  content: unknown,
  assets: Assets,
  verbatim = false,
): Promise<string> {
  if (typeof content === "string") {
    return verbatim
      ? `${fenced(content, "text")}\n\n`
      : `${safeMarkdown(content)}\n\n`;
  }
  if (!Array.isArray(content)) return "";
  let out = "";
  for (const b of content as ContentBlock[]) {
    if (b !== null && typeof b === "object") {
      out += await _block(b, assets, verbatim);
    }
  }
  return out;
}

async function _block(
  b: ContentBlock,
  assets: Assets,
  verbatim: boolean,
): Promise<string> {
  switch (b.type) {
    case "text": {
      const text = String(b.text);
      if (!verbatim) return `${safeMarkdown(text)}\n\n`;
      return `${fenced(await assets.text(text) ?? text, "text")}\n\n`;
    }
    case "thinking":
      return _details("Thinking", `${safeMarkdown(String(b.thinking))}\n\n`);
    case "toolCall":
      return _details(
        `Tool call: ${String(b.name)}`,
        `${fenced(JSON.stringify(b.arguments ?? null, null, 2), "json")}\n\n`,
      );
    case "image": {
      const out = await assets.image(b.data, b.mimeType);
      if (out.kind === "missing") {
        return `*Image not shown: ${out.reason}.*\n\n`;
      }
      return `![An image from the session](${
        out.kind === "inline" ? out.src : out.href
      })\n\n`;
    }
    case "redactedThinking":
      return "*Thinking (redacted by the provider).*\n\n";
    default:
      return `*A block of type ${escapeMarkdownInline(String(b.type))}.*\n\n`;
  }
}
