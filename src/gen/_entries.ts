/**
 * The entries of a `generate.ts` transcript: the envelope (id, parent,
 * timestamp) and the payloads of messages, model changes, summaries and
 * settings checkpoints.
 *
 * @module
 */

import { SETTINGS_CHECKPOINT_TYPE } from "../format/checkpoint.ts";
import type { MessageEntry, SessionEntry } from "../format/entries.ts";
import type {
  AssistantMessage,
  ContentBlock,
  Usage,
} from "../format/messages.ts";
import {
  type _Body,
  _FILES,
  _FNS,
  _MISSING,
  _MODELS,
  _PRICES,
  _PROMPTS,
  type _Rng,
  type _Text,
  type _Tool,
  _TOOLS,
} from "./_text.ts";

/** Every timestamp counts up from here (2026-01-05T09:00:00.000Z). */
export const BASE_MS = Date.UTC(2026, 0, 5, 9, 0, 0);

/**
 * Stands for a tool output in the line `encodeEntry` produces; the body is
 * spliced in its place. JSON escaping works character by character, so the
 * spliced line is byte for byte what `encodeEntry` gives for the whole text.
 */
export const _BODY_MARK = "<<generate:body>>";

/** An entry's payload fields, or a tool call's arguments. */
type _Payload = Record<string, unknown>;

/** A tool call in an assistant message. */
export interface _ToolCall {
  id: string;
  name: _Tool;
  arguments: _Payload;
}

/**
 * Makes the entries of one transcript in order: each envelope takes a fresh
 * id, the leaf as parent and a later timestamp, drawing from the shared PRNG.
 */
export class _Entries {
  readonly #r: _Rng;
  readonly #text: _Text;
  readonly #ids = new Set<number>();
  #clock = BASE_MS;
  /** The parent of the next entry: the leaf so far. */
  leaf: string | null = null;
  /** Index in `_MODELS` of the model in use. */
  model = 0;

  constructor(rng: _Rng, text: _Text) {
    this.#r = rng;
    this.#text = text;
  }

  /** The envelope of the next entry: a fresh id, the leaf as parent, the clock moved on. */
  envelope<T extends string>(type: T, maxSeconds: number): {
    type: T;
    id: string;
    parentId: string | null;
    timestamp: string;
  } {
    const r = this.#r;
    this.#clock += 1000 * r.range(1, Math.max(1, maxSeconds)) + r.int(1000);
    let n: number;
    do n = (r.next() * 4294967296) >>> 0; while (this.#ids.has(n));
    this.#ids.add(n);
    return {
      type,
      id: n.toString(16).padStart(8, "0"),
      parentId: this.leaf,
      timestamp: new Date(this.#clock).toISOString(),
    };
  }

  summary(): string {
    const t = this.#text;
    const r = this.#r;
    const bullets = Array.from(
      { length: r.range(3, 8) },
      () => `- ${t.words(r.range(6, 20), false)}`,
    );
    return `## Goal\n${t.words(r.range(10, 30), false)}\n\n## Progress\n${
      bullets.join("\n")
    }\n\n## Files\n- ${r.pick(_FILES)}\n- ${r.pick(_FILES)}\n\n## Next steps\n${
      t.words(r.range(8, 24), false)
    }`;
  }

  user(ascii: boolean): SessionEntry {
    const r = this.#r;
    let text = `${this.#text.fill(r.pick(_PROMPTS))} ${
      this.#text.words(r.range(3, 60), ascii)
    }`;
    if (!ascii && r.chance(0.02)) text += `\u2028${this.#text.words(4, false)}`;
    const envelope = this.envelope("message", 60);
    return {
      ...envelope,
      message: {
        role: "user",
        content: [{ type: "text", text }],
        timestamp: Date.parse(envelope.timestamp) - 1,
      },
    };
  }

  assistant(
    ascii: boolean,
    calls: number,
  ): MessageEntry & { message: AssistantMessage } {
    const r = this.#r;
    const t = this.#text;
    const { provider, model, api } = _MODELS[this.model]!;
    const content: ContentBlock[] = [];
    if (r.chance(0.7)) {
      content.push({
        type: "thinking",
        thinking: t.words(r.range(15, 200), ascii),
        thinkingSignature: provider === "anthropic"
          ? btoa(r.hex(64))
          : JSON.stringify({
            type: "reasoning",
            id: `rs_${r.hex(32)}`,
            summary: [],
          }),
      });
    }
    if (content.length === 0 || calls === 0 || r.chance(0.5)) {
      content.push({ type: "text", text: t.words(r.range(4, 160), ascii) });
    }
    for (let i = 0; i < calls; i++) {
      const name = r.pick(_TOOLS);
      const id = provider === "anthropic"
        ? `toolu_01${r.hex(22)}`
        : `call_${r.hex(24)}|fc_${r.hex(32)}`;
      content.push({
        type: "toolCall",
        id,
        name,
        arguments: this.#arguments(name),
      });
    }
    const envelope = this.envelope("message", 25);
    const message: AssistantMessage = {
      role: "assistant",
      content,
      api,
      provider,
      model,
      usage: this.#usage(),
      stopReason: calls > 0 ? "toolUse" : "stop",
      timestamp: Date.parse(envelope.timestamp) - 1,
      duration: r.range(400, 9000),
    };
    return { ...envelope, message };
  }

  toolResult(
    call: _ToolCall,
    isError: boolean,
  ): { entry: SessionEntry; body: _Body | undefined } {
    const r = this.#r;
    const ascii = r.chance(0.04);
    const head = `${call.name} ${JSON.stringify(call.arguments)} #${r.hex(6)}`;
    const body = isError
      ? undefined
      : this.#text.toolOutput(call.name, ascii, head);
    const text = body === undefined
      ? `Error: ENOENT: no such file or directory, open '${r.pick(_MISSING)}'`
      : _BODY_MARK;
    const envelope = this.envelope("message", 3);
    const entry: SessionEntry = {
      ...envelope,
      message: {
        role: "toolResult",
        toolCallId: call.id,
        toolName: call.name,
        content: [{ type: "text", text }],
        isError,
        timestamp: Date.parse(envelope.timestamp) - 1,
      },
    };
    return { entry, body };
  }

  modelChange(): SessionEntry {
    const { provider, model } = _MODELS[this.model]!;
    return {
      ...this.envelope("model_change", 0),
      model: `${provider}/${model}`,
      resolvedModelIsFallback: false,
    };
  }

  /** The settings checkpoint after a boundary (see the `checkpoints` option). */
  checkpoint(): SessionEntry {
    const { provider, model } = _MODELS[this.model]!;
    return {
      ...this.envelope("custom", 0),
      customType: SETTINGS_CHECKPOINT_TYPE,
      data: {
        v: 1,
        models: { default: `${provider}/${model}` },
        explicitDefaultModel: true,
        thinkingLevel: "medium",
        configuredThinkingLevel: "medium",
        labels: {},
      },
    };
  }

  #arguments(name: _Tool): _Payload {
    const r = this.#r;
    switch (name) {
      case "read":
        return { path: r.pick(_FILES) };
      case "bash":
        return { command: `deno test --filter ${r.pick(_FNS)}`, timeout: 120 };
      case "grep":
        return { pattern: r.pick(_FNS), path: "src" };
      case "edit":
        return {
          path: r.pick(_FILES),
          oldText: r.pick(_FNS),
          newText: `${r.pick(_FNS)}V2`,
        };
      case "find":
        return { pattern: "**/*.ts" };
    }
  }

  #usage(): Usage {
    const r = this.#r;
    const [pIn, pOut, pRead, pWrite] = _PRICES[this.model]!;
    const input = r.range(800, 60000);
    const output = r.range(40, 4000);
    const cacheRead = r.range(0, 120000);
    const cacheWrite = r.range(0, 4000);
    const usd = (tokens: number, price: number): number =>
      Math.round(tokens * price) / 1e6;
    const cost = {
      input: usd(input, pIn),
      output: usd(output, pOut),
      cacheRead: usd(cacheRead, pRead),
      cacheWrite: usd(cacheWrite, pWrite),
      total: 0,
    };
    cost.total = Math.round(
      (cost.input + cost.output + cost.cacheRead + cost.cacheWrite) * 1e6,
    ) / 1e6;
    const totalTokens = input + output + cacheRead + cacheWrite;
    return { input, output, cacheRead, cacheWrite, totalTokens, cost };
  }
}

/** A UUIDv7-looking id: `ms` in the first 48 bits, the rest from `rng`. */
export function _uuidV7(ms: number, rng: _Rng): string {
  const h = ms.toString(16).padStart(12, "0") + rng.hex(20);
  const variant = (8 | (parseInt(h[16]!, 16) & 3)).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-7${h.slice(13, 16)}-${variant}${
    h.slice(17, 20)
  }-${h.slice(20, 32)}`;
}
