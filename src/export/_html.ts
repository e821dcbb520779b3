/**
 * Messages as HTML fragments: one `<article class="msg">` per message,
 * thinking, tool calls and tool results in `<details>`, every string from
 * the session escaped, every image checked (see `_assets.ts`).
 *
 * @module
 */

import type { ContextMessage } from "../context/messages.ts";
import type { ContentBlock } from "../format/messages.ts";
import { type Assets, imagesApart } from "./_assets.ts";
import { escapeHtml } from "./_escape.ts";
import { codeBlockHtml, textToHtml } from "./_html_text.ts";
import { displayTime, messageTime } from "./_meta.ts";

/** The parts of a message as the article shows them. */
interface _Heading {
  role: string;
  label: string;
  detail?: string | undefined;
  badge?: string | undefined;
}

/**
 * A message as an `<article class="msg <role>" data-role="…">`; a tool
 * result's body is collapsible.
 *
 * @param m The message.
 * @param assets Where its images go.
 * @returns HTML.
 */
export async function messageHtml(
  m: ContextMessage,
  assets: Assets,
): Promise<string> {
  const r = m as Record<string, unknown>;
  const time = messageTime(m);
  switch (m.role) {
    case "user":
      return _article(
        { role: "user", label: "User" },
        time,
        await _blocks(r.content, assets),
      );
    case "assistant": {
      const stop = r.stopReason === "aborted" || r.stopReason === "error"
        ? String(r.stopReason)
        : undefined;
      let body = await _blocks(r.content, assets);
      if (typeof r.errorMessage === "string" && r.errorMessage !== "") {
        body += `\n<p class="error">${escapeHtml(r.errorMessage)}</p>`;
      }
      return _article(
        {
          role: "assistant",
          label: "Assistant",
          detail: _model(r),
          badge: stop,
        },
        time,
        body,
      );
    }
    case "toolResult": {
      const error = r.isError === true;
      const { images, rest } = imagesApart(r.content);
      const body = await _blocks(rest, assets, true);
      const shown = images.length > 0
        ? `${await _blocks(images, assets)}\n`
        : "";
      const name = typeof r.toolName === "string" ? r.toolName : "tool";
      return `<article class="msg tool-result${
        error ? " error" : ""
      }" data-role="toolResult">\n` +
        `<details><summary>${
          _heading(
            {
              role: "toolResult",
              label: "Tool result",
              detail: name,
              badge: error ? "error" : undefined,
            },
            time,
          )
        }</summary>\n${body}\n</details>\n${shown}</article>\n`;
    }
    case "compactionSummary":
      return _article(
        { role: "compactionSummary", label: "Summary of earlier history" },
        time,
        _text(String(r.summary)),
      );
    case "branchSummary":
      return _article(
        { role: "branchSummary", label: "Summary of an abandoned branch" },
        time,
        _text(String(r.summary)),
      );
    case "custom":
      return _article(
        {
          role: "custom",
          label: String(r.customType),
          badge: r.display === true ? undefined : "hidden from the UI",
        },
        time,
        await _blocks(r.content, assets),
      );
    default: {
      const body = r.content === undefined
        ? codeBlockHtml(JSON.stringify(m, null, 2), "json")
        : await _blocks(r.content, assets);
      return _article({ role: "other", label: String(m.role) }, time, body);
    }
  }
}

function _article(h: _Heading, time: string | undefined, body: string): string {
  return `<article class="msg ${h.role}" data-role="${escapeHtml(h.role)}">\n` +
    `<header>${_heading(h, time)}</header>\n${body}\n</article>\n`;
}

function _heading(h: _Heading, time: string | undefined): string {
  let out = `<span class="role">${escapeHtml(h.label)}</span>`;
  if (h.detail !== undefined) {
    out += ` <code class="detail">${escapeHtml(h.detail)}</code>`;
  }
  if (h.badge !== undefined) {
    out += ` <span class="badge">${escapeHtml(h.badge)}</span>`;
  }
  if (time !== undefined) {
    out += ` <time datetime="${escapeHtml(time)}">${
      escapeHtml(displayTime(time))
    }</time>`;
  }
  return out;
}

function _model(r: Record<string, unknown>): string | undefined {
  const { provider, model } = r;
  if (typeof model !== "string") return undefined;
  return typeof provider === "string" ? `${provider}/${model}` : model;
}

/** Content (a string or blocks) as HTML; a tool's text shown verbatim. */
async function _blocks(
  content: unknown,
  assets: Assets,
  verbatim = false,
): Promise<string> {
  if (typeof content === "string") {
    return verbatim ? codeBlockHtml(content) : _text(content);
  }
  if (!Array.isArray(content)) return "";
  const out: string[] = [];
  for (const block of content as ContentBlock[]) {
    out.push(await _block(block, assets, verbatim));
  }
  return out.join("\n");
}

async function _block(
  b: ContentBlock,
  assets: Assets,
  verbatim: boolean,
): Promise<string> {
  if (b === null || typeof b !== "object") return "";
  switch (b.type) {
    case "text": {
      const text = String(b.text);
      if (!verbatim) return _text(text);
      return codeBlockHtml(await assets.text(text) ?? text);
    }
    case "thinking":
      return `<details class="thinking"><summary>Thinking</summary>\n` +
        `<div class="text">${textToHtml(String(b.thinking))}</div>\n</details>`;
    case "toolCall":
      return `<details class="tool-call"><summary><span class="role">Tool call</span> <code class="detail">${
        escapeHtml(String(b.name))
      }</code></summary>\n${
        codeBlockHtml(JSON.stringify(b.arguments ?? null, null, 2), "json")
      }\n</details>`;
    case "image": {
      const out = await assets.image(b.data, b.mimeType);
      if (out.kind === "missing") {
        return `<p class="missing">Image not shown: ${
          escapeHtml(out.reason)
        }.</p>`;
      }
      const src = out.kind === "inline" ? out.src : out.href;
      return `<figure><img src="${
        escapeHtml(src)
      }" alt="An image from the session"></figure>`;
    }
    case "redactedThinking":
      return `<p class="note">Thinking (redacted by the provider).</p>`;
    default:
      return `<p class="note">A block of type <code>${
        escapeHtml(String(b.type))
      }</code>.</p>`;
  }
}

function _text(text: string): string {
  return `<div class="text">${textToHtml(text)}</div>`;
}
