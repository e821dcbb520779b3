/**
 * The normalized JSON of a context, in the shape of omp's
 * `fixtures/omp/*.context.json`, so the two compare field by field.
 *
 * @module
 */

import { fromBase64, sha256Hex } from "../format/_encoding.ts";
import type { SessionContext } from "./context.ts";
import type { ContextMessage } from "./messages.ts";
import { BLOB_REF_PREFIX } from "../format/blob_ref.ts";

/** The fields `context --json` prints. */
export interface ContextJson {
  /** The session's title, or null. */
  title: string | null;
  /** On-disk vocabulary, as omp reports it: `auto`, `user` or `subagent`. */
  titleSource: string | null;
  /** The active leaf, or null for a session without entries. */
  leafId: string | null;
  /** The active path, root first. */
  activePath: { id: string; type: string }[];
  /** `provider/modelId` per role (`default`, `smol` …). */
  models: Record<string, string>;
  /** `models.default`, or null. */
  model: string | null;
  /** The thinking level; `off` without a change. */
  thinkingLevel: string;
  /** Labels in effect: entry id → label. */
  labels: Record<string, string>;
  /** The context's messages, normalized as {@linkcode contextToJson} says. */
  messages: Record<string, unknown>[];
}

/**
 * The fields of {@linkcode ContextJson}, in order: the ones compared with
 * omp's `context.json` field by field.
 *
 * @example Comparing two contexts field by field
 * ```ts
 * import { CONTEXT_JSON_FIELDS } from "./context_json.ts";
 * import { equal } from "node:assert/strict";
 * equal(CONTEXT_JSON_FIELDS.at(-1), "messages");
 * ```
 */
export const CONTEXT_JSON_FIELDS: readonly (keyof ContextJson)[] = [
  "title",
  "titleSource",
  "leafId",
  "activePath",
  "models",
  "model",
  "thinkingLevel",
  "labels",
  "messages",
];

type _Json = Record<string, unknown>;

/**
 * Normalize a context as omp's oracle does: each message reduced to its role,
 * content and a few identifying fields; timestamps, usage and signatures
 * dropped (thinking keeps `signed`); images become
 * `{type, mimeType, sha256, bytes}` of the decoded bytes, or
 * `{type, mimeType, unresolvedRef}` when the blob was missing.
 *
 * @example Normalizing a one-message context
 * ```ts
 * import { contextToJson, Session } from "@xdev/session";
 * import { deepEqual, equal } from "node:assert/strict";
 *
 * const dataDir = await Deno.makeTempDir();
 * try {
 *   await using session = await Session.create({ cwd: "/work", dataDir });
 *   await session.appendMessage({ role: "user", content: "hi" });
 *   const json = await contextToJson(session.buildContext(), "Greeting", "manual");
 *   equal(json.titleSource, "user");
 *   deepEqual(json.messages, [{ role: "user", content: "hi" }]);
 * } finally {
 *   await Deno.remove(dataDir, { recursive: true });
 * }
 * ```
 *
 * @param ctx A rebuilt context.
 * @param title The session's title.
 * @param titleSource The session's title source (API vocabulary).
 * @returns The JSON-ready object.
 */
export async function contextToJson(
  ctx: SessionContext,
  title: string | undefined,
  titleSource: string | undefined,
): Promise<ContextJson> {
  const messages: _Json[] = [];
  for (const m of ctx.messages) messages.push(await _message(m));
  return {
    title: title ?? null,
    titleSource: titleSource === undefined
      ? null
      : titleSource === "manual"
      ? "user"
      : titleSource,
    leafId: ctx.leafId,
    activePath: ctx.activePath,
    models: ctx.models,
    model: ctx.model,
    thinkingLevel: ctx.thinkingLevel,
    labels: ctx.labels,
    messages,
  };
}

async function _message(message: ContextMessage): Promise<_Json> {
  const m = message as unknown as _Json;
  const out: _Json = { role: m.role };
  switch (m.role) {
    case "user":
    case "developer":
      out.content = await _content(m.content);
      if (m.synthetic) out.synthetic = true;
      break;
    case "assistant":
      out.provider = m.provider;
      out.model = m.model;
      out.api = m.api;
      out.stopReason = m.stopReason;
      out.content = await _content(m.content);
      break;
    case "toolResult":
      out.toolCallId = m.toolCallId;
      out.toolName = m.toolName;
      out.isError = m.isError;
      out.content = await _content(m.content);
      break;
    case "custom":
      out.customType = m.customType;
      out.display = m.display;
      out.content = await _content(m.content);
      break;
    case "compactionSummary":
      // omp keeps a summary written as a message object (xdev's) as it is.
      out.summary = m.summaryMessage ?? m.summary;
      out.shortSummary = m.shortSummary;
      out.tokensBefore = m.tokensBefore;
      break;
    case "branchSummary":
      out.summary = m.summaryMessage ?? m.summary;
      out.fromId = m.fromId;
      break;
    default:
      for (const k of ["content", "command", "output", "code", "exitCode"]) {
        if (k in m) out[k] = await _content(m[k]);
      }
  }
  return out;
}

async function _content(content: unknown): Promise<unknown> {
  if (!Array.isArray(content)) return content;
  const out: unknown[] = [];
  for (const b of content) out.push(await _block(b));
  return out;
}

async function _block(block: unknown): Promise<unknown> {
  if (block === null || typeof block !== "object") return block;
  const b = block as _Json;
  switch (b.type) {
    case "text":
      return { type: "text", text: b.text };
    case "thinking":
      return {
        type: "thinking",
        thinking: b.thinking,
        signed: typeof b.thinkingSignature === "string" &&
          b.thinkingSignature.length > 0,
      };
    case "redactedThinking":
      return { type: "redactedThinking" };
    case "toolCall":
      return {
        type: "toolCall",
        id: b.id,
        name: b.name,
        arguments: b.arguments,
      };
    case "image": {
      const data = typeof b.data === "string" ? b.data : "";
      if (data.startsWith(BLOB_REF_PREFIX)) {
        return { type: "image", mimeType: b.mimeType, unresolvedRef: data };
      }
      const bytes = _fromBase64(data);
      return {
        type: "image",
        mimeType: b.mimeType,
        sha256: await sha256Hex(bytes),
        bytes: bytes.length,
      };
    }
    default:
      return { type: b.type };
  }
}

function _fromBase64(data: string): Uint8Array<ArrayBuffer> {
  try {
    return fromBase64(data) as Uint8Array<ArrayBuffer>;
  } catch {
    // Node's Buffer.from(…, "base64"), which the oracle uses, is lenient:
    // strip what is not base64 and decode the rest.
    const clean = data.replace(/[^A-Za-z0-9+/]/g, "");
    return fromBase64(
      clean.slice(0, clean.length - (clean.length % 4)),
    ) as Uint8Array<ArrayBuffer>;
  }
}
