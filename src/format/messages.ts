/**
 * Message types: what a `message` entry holds, and its content blocks.
 *
 * @module
 */

/** A text block. */
export interface TextBlock {
  /** The discriminator. */
  type: "text";
  /** The text. */
  text: string;
  /** Fields this library does not model; kept as read. */
  [key: string]: unknown;
}

/** A model's visible reasoning; signed when the provider attached a signature. */
export interface ThinkingBlock {
  /** The discriminator. */
  type: "thinking";
  /** The reasoning text. */
  thinking: string;
  /** The provider's signature; dropped from a turn that loses a tool call. */
  thinkingSignature?: string;
  /** Fields this library does not model; kept as read. */
  [key: string]: unknown;
}

/** A tool call made by the assistant. */
export interface ToolCallBlock {
  /** The discriminator. */
  type: "toolCall";
  /** The call's id, which the result's `toolCallId` names. */
  id: string;
  /** The tool called. */
  name: string;
  /** The arguments, as the model wrote them. */
  arguments: unknown;
  /** Fields this library does not model; kept as read. */
  [key: string]: unknown;
}

/**
 * An image. `data` is base64, or a `blob:sha256:<hex>` reference to the blob
 * store when it was stored out of band.
 */
export interface ImageBlock {
  /** The discriminator. */
  type: "image";
  /** Base64 bytes, or a `blob:sha256:<hex>` reference. */
  data: string;
  /** The image's media type, such as `image/png`. */
  mimeType: string;
  /** Fields this library does not model; kept as read. */
  [key: string]: unknown;
}

/** A block type this library does not model; kept as read. */
export interface OtherBlock {
  /** The discriminator (`redactedThinking` …). */
  type: string;
  /** The block's other fields, kept as read. */
  [key: string]: unknown;
}

/** One block of a message's content. */
export type ContentBlock =
  | TextBlock
  | ThinkingBlock
  | ToolCallBlock
  | ImageBlock
  | OtherBlock;

/** Token counts and cost of one model call. */
export interface Usage {
  /** Input tokens. */
  input: number;
  /** Output tokens. */
  output: number;
  /** Input tokens read from the provider's cache. */
  cacheRead?: number;
  /** Input tokens written to the provider's cache. */
  cacheWrite?: number;
  /** All tokens of the call; when absent or 0, the four counts are summed. */
  totalTokens?: number;
  /** omp 18.3.4 crashes on a usage without cost: the writer always fills one. */
  cost?: {
    input: number;
    output: number;
    cacheRead?: number;
    cacheWrite?: number;
    total: number;
  };
  /** Fields this library does not model; kept as read. */
  [key: string]: unknown;
}

/** A user turn. */
export interface UserMessage {
  /** The discriminator. */
  role: "user";
  /** Plain text, or blocks. */
  content: string | ContentBlock[];
  /** Milliseconds since the Unix epoch. */
  timestamp?: number;
  /** Fields this library does not model; kept as read. */
  [key: string]: unknown;
}

/** Why an assistant turn ended. */
export type StopReason = "stop" | "length" | "toolUse" | "error" | "aborted";

/** An assistant turn. */
export interface AssistantMessage {
  /** The discriminator. */
  role: "assistant";
  /** The reply: text, thinking, tool calls and images. */
  content: ContentBlock[];
  /** The provider API the call went through. */
  api?: string;
  /** The provider; with `model`, the default model when no `model_change` sets one. */
  provider?: string;
  /** The model id at that provider. */
  model?: string;
  /** Tokens and cost of the call. */
  usage?: Usage;
  /** Why the turn ended; `aborted` and `error` turns never reach the context. */
  stopReason?: StopReason | string;
  /** What went wrong, when the turn failed. */
  errorMessage?: string;
  /** Milliseconds since the Unix epoch. */
  timestamp?: number;
  /** Fields this library does not model (`retryRecovery` …); kept as read. */
  [key: string]: unknown;
}

/** The result of one tool call. */
export interface ToolResultMessage {
  /** The discriminator. */
  role: "toolResult";
  /** The `id` of the tool call this answers. */
  toolCallId: string;
  /** The tool that ran. */
  toolName: string;
  /** The tool's output. */
  content: ContentBlock[];
  /** Whether the tool failed. */
  isError: boolean;
  /** Extra data the tool attached. */
  details?: unknown;
  /** Milliseconds since the Unix epoch. */
  timestamp?: number;
  /** Fields this library does not model; kept as read. */
  [key: string]: unknown;
}

/** A message of another role (developer, custom, bashExecution …). */
export interface OtherMessage {
  /** The discriminator. */
  role: string;
  /** The message's other fields, kept as read. */
  [key: string]: unknown;
}

/** What a `message` entry holds. */
export type AgentMessage =
  | UserMessage
  | AssistantMessage
  | ToolResultMessage
  | OtherMessage;

/**
 * The text a compaction's or a branch summary's `summary` stands for. omp
 * writes a string; xdev's Go store writes a message object
 * (`{"role":"user","content":[{"type":"text","text":…}]}`, DESIGN §3.11),
 * whose text is its text blocks joined with nothing between them, as xdev's
 * `Message.Text()` joins them (a `content` that is a string is that string).
 * Anything else stands for no text.
 *
 * @example Both shapes of a summary
 * ```ts
 * import { summaryText } from "./messages.ts";
 * import { equal } from "node:assert/strict";
 * equal(summaryText("Asked about CI."), "Asked about CI.");
 * equal(
 *   summaryText({
 *     role: "user",
 *     content: [{ type: "text", text: "## Summary\n" }, { type: "text", text: "Asked about CI." }],
 *   }),
 *   "## Summary\nAsked about CI.",
 * );
 * equal(summaryText(null), "");
 * ```
 *
 * @param summary The entry's `summary` as read.
 * @returns Its text.
 */
export function summaryText(summary: unknown): string {
  if (typeof summary === "string") return summary;
  const m = summaryMessage(summary);
  if (m === undefined) return "";
  const content = m.content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  let text = "";
  for (const b of content) {
    if (b?.type === "text" && typeof b.text === "string") text += b.text;
  }
  return text;
}

/**
 * A summary written as a message object (xdev's shape, see
 * {@linkcode summaryText}), or undefined for a string or anything else.
 *
 * @example Telling the two shapes apart
 * ```ts
 * import { summaryMessage } from "./messages.ts";
 * import { equal } from "node:assert/strict";
 * equal(summaryMessage("Asked about CI."), undefined);
 * equal(summaryMessage({ role: "user", content: [] })?.role, "user");
 * ```
 *
 * @param summary The entry's `summary` as read.
 * @returns The message, or undefined.
 */
export function summaryMessage(summary: unknown): AgentMessage | undefined {
  if (summary === null || typeof summary !== "object") return undefined;
  if (Array.isArray(summary)) return undefined;
  const m = summary as { role?: unknown; content?: unknown };
  return typeof m.role === "string" && m.content !== undefined
    ? summary as AgentMessage
    : undefined;
}
