/**
 * The entries of a generated transcript, one builder per kind: the envelope
 * (a fresh id, the entry before as parent, a later timestamp), then the
 * payload of a message, a model change, a compaction, a branch summary or a
 * settings checkpoint, each drawn from the shared PRNG; and the file's
 * opening (its head and first turn).
 *
 * @module
 */

import {
  checkpointData,
  SETTINGS_CHECKPOINT_TYPE,
} from "../format/checkpoint.ts";
import type {
  EntryEnvelope,
  MessageEntry,
  SessionEntry,
} from "../format/entries.ts";
import {
  encodeHead,
  SESSION_VERSION,
  type SessionHeader,
} from "../format/header.ts";
import type {
  AssistantMessage,
  ContentBlock,
  ToolCallBlock,
  Usage,
} from "../format/messages.ts";
import {
  type _Body,
  _FILES,
  _FNS,
  _MISSING,
  _PROMPTS,
  _Rng,
  type _Text,
  _TITLES,
  type _Tool,
  _TOOLS,
} from "./_text.ts";

/** Every timestamp counts up from here (2026-01-05T09:00:00.000Z). */
const BASE_MS = Date.UTC(2026, 0, 5, 9, 0, 0);

/**
 * Stands for a tool output in the line `encodeEntry` gives; the body is
 * spliced in its place. JSON escaping works character by character, so the
 * spliced line is byte for byte what `encodeEntry` gives for the whole text.
 */
export const _BODY_MARK = "<<generate:body>>";

/** The two models the session switches between, with their API. */
const _MODELS = [
  {
    provider: "anthropic",
    model: "claude-sonnet-4-5",
    api: "anthropic-messages",
  },
  { provider: "openai", model: "gpt-5.1-codex", api: "openai-responses" },
] as const;
/** Prices of `_MODELS` in USD per million tokens: input, output, cache read, cache write. */
const _PRICES = [[3, 15, 0.3, 3.75], [1.25, 10, 0.125, 0]] as const;

/** An assistant message entry: its tool calls are answered next. */
export type _AssistantEntry = MessageEntry & { message: AssistantMessage };

/**
 * Makes the entries of one transcript in order, each drawing from the
 * shared PRNG: the order of the calls is the order of the draws.
 */
export class _Entries {
  readonly #r: _Rng;
  readonly #text: _Text;
  readonly #ids = new Set<number>();
  #clock = BASE_MS;
  /**
   * The parent of the next entry: the last one made (entries are written
   * in the order they are made), or the entry a branch goes back to.
   */
  parent: string | null = null;
  /** Index in `_MODELS` of the model in use. */
  model = 0;

  constructor(rng: _Rng, text: _Text) {
    this.#r = rng;
    this.#text = text;
  }

  /**
   * The head (the title slot and the header), then model and thinking
   * level and a short first turn the title came from. The head holds the
   * title's timestamp, so the entries are made first; the header's id and
   * the title come from a PRNG of their own.
   */
  opening(seed: number): { head: Uint8Array; entries: SessionEntry[] } {
    const ids = new _Rng(seed ^ 0x5eed1d);
    const title = ids.pick(_TITLES);
    const entries: SessionEntry[] = [
      this.modelChange(),
      {
        ...this.envelope("thinking_level_change", 0),
        thinkingLevel: "medium",
        configured: "medium",
      },
      this.user(false),
      this.assistant(false, 0),
      {
        ...this.envelope("title_change", 0),
        title,
        source: "auto",
        trigger: "auto-title",
      },
    ];
    const header: SessionHeader = {
      type: "session",
      version: SESSION_VERSION,
      id: _uuidV7(BASE_MS, ids),
      timestamp: new Date(BASE_MS).toISOString(),
      cwd: "/home/dev/src/app",
    };
    const updatedAt = entries[4]!.timestamp;
    const head = encodeHead({ title, source: "auto", updatedAt }, header);
    return { head, entries };
  }

  /** The envelope of the next entry: a fresh id, its parent, the clock moved on. */
  envelope<T extends string>(
    type: T,
    maxSeconds: number,
  ): EntryEnvelope & { type: T } {
    const r = this.#r;
    this.#clock += 1000 * r.range(1, Math.max(1, maxSeconds)) + r.int(1000);
    let n: number;
    do n = r.u32(); while (this.#ids.has(n));
    this.#ids.add(n);
    const id = n.toString(16).padStart(8, "0");
    const parentId = this.parent;
    this.parent = id;
    return {
      type,
      id,
      parentId,
      timestamp: new Date(this.#clock).toISOString(),
    };
  }

  user(ascii: boolean): SessionEntry {
    const r = this.#r;
    const t = this.#text;
    const prompt = r.pick(_PROMPTS).replaceAll("{file}", r.pick(_FILES))
      .replaceAll("{fn}", r.pick(_FNS));
    let text = `${prompt} ${t.words(r.range(3, 60), ascii)}`;
    if (!ascii && r.chance(0.02)) text += `\u2028${t.words(4, false)}`;
    const envelope = this.envelope("message", 60);
    const timestamp = Date.parse(envelope.timestamp) - 1;
    const content = [{ type: "text" as const, text }];
    return { ...envelope, message: { role: "user", content, timestamp } };
  }

  /** An assistant turn: thinking, text and `calls` tool calls, with a usage. */
  assistant(ascii: boolean, calls: number): _AssistantEntry {
    const r = this.#r;
    const t = this.#text;
    const { provider, model, api } = _MODELS[this.model]!;
    const content: ContentBlock[] = [];
    if (r.chance(0.7)) {
      const thinking = t.words(r.range(15, 200), ascii);
      const thinkingSignature = provider === "anthropic"
        ? btoa(r.hex(64))
        : JSON.stringify({
          type: "reasoning",
          id: `rs_${r.hex(32)}`,
          summary: [],
        });
      content.push({ type: "thinking", thinking, thinkingSignature });
    }
    if (content.length === 0 || calls === 0 || r.chance(0.5)) {
      content.push({ type: "text", text: t.words(r.range(4, 160), ascii) });
    }
    for (let i = 0; i < calls; i++) {
      const name = r.pick(_TOOLS);
      const id = provider === "anthropic"
        ? `toolu_01${r.hex(22)}`
        : `call_${r.hex(24)}|fc_${r.hex(32)}`;
      content.push({ type: "toolCall", id, name, arguments: this.#args(name) });
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

  /**
   * The result of a tool call: an error, or a tool output whose text is
   * {@linkcode _BODY_MARK} in the entry and the returned body on disk.
   */
  toolResult(
    call: ToolCallBlock,
    isError: boolean,
  ): { entry: SessionEntry; body: _Body | undefined } {
    const r = this.#r;
    const name = call.name as _Tool;
    const ascii = r.chance(0.04);
    const head = `${name} ${JSON.stringify(call.arguments)} #${r.hex(6)}`;
    const body = isError ? undefined : this.#text.toolOutput(name, ascii, head);
    const text = body === undefined
      ? `Error: ENOENT: no such file or directory, open '${r.pick(_MISSING)}'`
      : _BODY_MARK;
    const envelope = this.envelope("message", 3);
    const entry: SessionEntry = {
      ...envelope,
      message: {
        role: "toolResult",
        toolCallId: call.id,
        toolName: name,
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

  /** A compaction keeping `firstKeptEntryId` on, `bytesSince` after the last one. */
  compaction(
    firstKeptEntryId: string | null,
    bytesSince: number,
  ): SessionEntry {
    const r = this.#r;
    const t = this.#text;
    return {
      ...this.envelope("compaction", 40),
      summary: this.#summary(),
      shortSummary: t.words(r.range(3, 6), false),
      firstKeptEntryId,
      tokensBefore: Math.round(bytesSince / 3.7) + r.range(2000, 9000),
      tokensAfter: r.range(3000, 12000),
      details: { readFiles: [r.pick(_FILES)], modifiedFiles: [r.pick(_FILES)] },
    };
  }

  /** The summary of an abandoned branch, under `fromId`. */
  branchSummary(fromId: string): SessionEntry {
    const r = this.#r;
    return {
      ...this.envelope("branch_summary", 5),
      fromId,
      summary: `Abandoned approach: ${
        this.#text.words(r.range(12, 40), false)
      }`,
      details: { readFiles: [r.pick(_FILES)] },
    };
  }

  /** The settings checkpoint this library's writer puts after a boundary. */
  checkpoint(): SessionEntry {
    const { provider, model } = _MODELS[this.model]!;
    const data = checkpointData({
      models: { default: `${provider}/${model}` },
      explicitDefaultModel: true,
      thinkingLevel: "medium",
      configuredThinkingLevel: "medium",
    }, {});
    const envelope = this.envelope("custom", 0);
    return { ...envelope, customType: SETTINGS_CHECKPOINT_TYPE, data };
  }

  /** A compaction's summary, in omp's headings. */
  #summary(): string {
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

  #args(name: _Tool): Record<string, unknown> {
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

  /** Token counts and their cost at the model's prices, rounded to 1e-6 USD. */
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
function _uuidV7(ms: number, rng: _Rng): string {
  const h = ms.toString(16).padStart(12, "0") + rng.hex(20);
  const variant = (8 | (parseInt(h[16]!, 16) & 3)).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-7${h.slice(13, 16)}-${variant}${
    h.slice(17, 20)
  }-${h.slice(20, 32)}`;
}
