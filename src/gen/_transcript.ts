/**
 * The shape of a `generate.ts` transcript: user turns, tool rounds and
 * replies, with compactions, resets, model changes and the branch back
 * placed by size, written through the chunk writer.
 *
 * @module
 */

import { encodeEntry, type SessionEntry } from "../format/entries.ts";
import { SESSION_VERSION, type SessionHeader } from "../format/header.ts";
import { encodeHead } from "../format/_head.ts";
import type { _Config } from "./_config.ts";
import {
  _BODY_MARK,
  _Entries,
  type _ToolCall,
  _uuidV7,
  BASE_MS,
} from "./_entries.ts";
import { type _Body, _FILES, _Rng, _Text, _TITLES } from "./_text.ts";
import type { _ChunkWriter } from "./_writer.ts";
import type { GenerateResult } from "./_options.ts";

/** Longest tail written under the branch_summary of `branchBackAtEnd`. */
const BRANCH_TAIL_MAX = 512 * 1024;
const CWD = "/home/dev/src/app";

/** What a recent chain entry was, for picking compaction and branch targets. */
interface _Recent {
  id: string;
  kind: "user" | "turnEnd" | "other";
  model: number;
}
const _RECENT_KEPT = 64;

/** Writes one transcript: the slot, the header, then entries to the target size. */
export class _Transcript {
  readonly #w: _ChunkWriter;
  readonly #c: _Config;
  readonly #r: _Rng;
  readonly #text: _Text;
  readonly #e: _Entries;
  #entries = 0;
  #compactions = 0;
  #resets = 0;
  #lastCompactionOffset = -1;
  #recent: _Recent[] = [];
  /** Rounds of tool calls left in the turn; -1 between turns. */
  #roundsLeft = -1;
  #afterUser = false;
  #modelChangeDue = false;
  #nextCompaction: number;
  readonly #finalAt: number | undefined;
  #finalDone = false;
  readonly #branchAt: number | undefined;
  #branched = false;
  /** Where `branchBackAtEnd` goes back to: an entry before the last compaction. */
  #branchPoint: _Recent | undefined;
  #resetIndex = 0;

  constructor(writer: _ChunkWriter, config: _Config) {
    this.#w = writer;
    this.#c = config;
    this.#r = new _Rng(config.seed);
    this.#text = new _Text(this.#r);
    this.#e = new _Entries(this.#r, this.#text);
    const { size, lastCompactionBeforeEnd: last, compactionEvery } = config;
    this.#finalAt = size > last ? size - last : undefined;
    this.#nextCompaction = compactionEvery;
    this.#branchAt = config.branchBackAtEnd
      ? size - Math.min(BRANCH_TAIL_MAX, last / 2)
      : undefined;
  }

  async run(): Promise<GenerateResult> {
    const idRng = new _Rng(this.#c.seed ^ 0x5eed1d);
    const title = idRng.pick(_TITLES);
    const opening = this.#opening(title);
    const titleChange = opening[opening.length - 1]!;
    const slot = {
      title,
      source: "auto" as const,
      updatedAt: titleChange.entry.timestamp,
    };
    const header: SessionHeader = {
      type: "session",
      version: SESSION_VERSION,
      id: _uuidV7(BASE_MS, idRng),
      timestamp: new Date(BASE_MS).toISOString(),
      cwd: CWD,
    };
    await this.#w.text(new TextDecoder().decode(encodeHead(slot, header)));
    let done = false;
    for (const { entry, kind } of opening) {
      done = await this.#write(entry, kind);
      if (done) break;
    }
    while (!done) done = await this.#step();
    await this.#w.drain();
    return {
      bytes: this.#w.bytes,
      entries: this.#entries,
      compactions: this.#compactions,
      resets: this.#resets,
      lastCompactionOffset: this.#lastCompactionOffset,
      leafId: this.#e.leaf!,
    };
  }

  /** Model and thinking level, then a short first turn the title came from. */
  #opening(title: string): { entry: SessionEntry; kind: _Recent["kind"] }[] {
    const out: { entry: SessionEntry; kind: _Recent["kind"] }[] = [];
    const add = (entry: SessionEntry, kind: _Recent["kind"]): void => {
      out.push({ entry, kind });
      this.#e.leaf = entry.id; // chain the next envelope; #write sets it again
    };
    add(this.#e.modelChange(), "other");
    add({
      ...this.#e.envelope("thinking_level_change", 0),
      thinkingLevel: "medium",
      configured: "medium",
    }, "other");
    add(this.#e.user(false), "user");
    add(this.#e.assistant(false, 0), "turnEnd");
    add({
      ...this.#e.envelope("title_change", 0),
      title,
      source: "auto",
      trigger: "auto-title",
    }, "other");
    this.#e.leaf = null;
    return out;
  }

  /** One step: events due at this point, then a user turn, a tool round or a reply. */
  async #step(): Promise<boolean> {
    if (!this.#afterUser && await this.#events()) return true;
    const ascii = this.#r.chance(0.04);
    if (this.#roundsLeft < 0) {
      const r = this.#r;
      this.#roundsLeft = r.chance(0.2) ? 0 : r.range(1, 5);
      this.#afterUser = true;
      return await this.#write(this.#e.user(ascii), "user");
    }
    this.#afterUser = false;
    if (this.#roundsLeft === 0) {
      this.#roundsLeft = -1;
      return await this.#write(this.#e.assistant(ascii, 0), "turnEnd");
    }
    this.#roundsLeft--;
    const r = this.#r;
    const calls = r.chance(0.75) ? 1 : r.chance(0.7) ? 2 : 3;
    const turn = this.#e.assistant(ascii, calls);
    if (await this.#write(turn, "other")) return true;
    for (const block of turn.message.content) {
      if (block.type !== "toolCall") continue;
      const { entry, body } = this.#e.toolResult(
        block as _ToolCall,
        r.chance(0.05),
      );
      if (await this.#write(entry, "other", body)) return true;
    }
    return false;
  }

  /** Compactions, the branch, resets and model changes due now. */
  async #events(): Promise<boolean> {
    const bytes = this.#w.bytes;
    const every = this.#c.compactionEvery;
    const final = this.#finalAt;
    if (final !== undefined && !this.#finalDone) {
      if (bytes >= final) {
        this.#finalDone = true;
        if (await this.#compaction(true)) return true;
      } else if (bytes >= this.#nextCompaction && bytes < final - every / 2) {
        if (await this.#compaction(false)) return true;
      }
    }
    if (
      this.#branchAt !== undefined && !this.#branched && bytes >= this.#branchAt
    ) {
      this.#branched = true;
      if (await this.#branch()) return true;
    }
    if (this.#roundsLeft >= 0) return false; // mid-turn: the rest waits
    const resetAt = this.#c.resetsAt[this.#resetIndex];
    if (resetAt !== undefined && bytes >= resetAt * this.#c.size) {
      this.#resetIndex++;
      this.#resets++;
      if (await this.#write(this.#e.envelope("reset_boundary", 30), "other")) {
        return true;
      }
      if (await this.#checkpoint()) return true;
    }
    if (this.#modelChangeDue || this.#r.chance(0.02)) {
      this.#modelChangeDue = false;
      this.#e.model ^= 1;
      return await this.#write(this.#e.modelChange(), "other");
    }
    return false;
  }

  async #compaction(final: boolean): Promise<boolean> {
    const r = this.#r;
    const kept = this.#firstKept();
    if (final) this.#branchPoint = this.#before(kept);
    const offset = this.#w.bytes;
    const entry = {
      ...this.#e.envelope("compaction", 40),
      summary: this.#e.summary(),
      shortSummary: this.#text.words(r.range(3, 6), false),
      firstKeptEntryId: this.#recent[kept]?.id ?? null,
      tokensBefore: Math.round((offset - this.#lastCompactionOffset) / 3.7) +
        r.range(2000, 9000),
      tokensAfter: r.range(3000, 12000),
      details: { readFiles: [r.pick(_FILES)], modifiedFiles: [r.pick(_FILES)] },
    };
    this.#compactions++;
    this.#lastCompactionOffset = offset;
    this.#nextCompaction = offset + this.#c.compactionEvery;
    this.#modelChangeDue = r.chance(0.5);
    if (await this.#write(entry, "other")) return true;
    return await this.#checkpoint();
  }

  /** The settings checkpoint after a boundary (see the `checkpoints` option). */
  async #checkpoint(): Promise<boolean> {
    if (!this.#c.checkpoints) return false;
    return await this.#write(this.#e.checkpoint(), "other");
  }

  /** Index in #recent of the first kept entry: the latest user message a few entries back. */
  #firstKept(): number {
    const recent = this.#recent;
    for (let i = recent.length - 3; i >= 0; i--) {
      if (recent[i]!.kind === "user") return i;
    }
    return Math.max(0, recent.length - 3);
  }

  /** The latest turn end before index `kept` (else the entry just before it). */
  #before(kept: number): _Recent | undefined {
    for (let i = kept - 1; i >= 0; i--) {
      if (this.#recent[i]!.kind === "turnEnd") return this.#recent[i];
    }
    return this.#recent[kept - 1] ?? this.#recent[this.#recent.length - 1];
  }

  async #branch(): Promise<boolean> {
    const point = this.#branchPoint ?? this.#before(this.#firstKept());
    if (point === undefined) return false;
    this.#e.leaf = point.id;
    this.#e.model = point.model;
    this.#roundsLeft = -1;
    this.#recent = [point];
    return await this.#write({
      ...this.#e.envelope("branch_summary", 5),
      fromId: point.id,
      summary: `Abandoned approach: ${
        this.#text.words(this.#r.range(12, 40), false)
      }`,
      details: { readFiles: [this.#r.pick(_FILES)] },
    }, "other");
  }

  /** Write one entry; true once the target size is reached. */
  async #write(
    entry: SessionEntry,
    kind: _Recent["kind"],
    body?: _Body,
  ): Promise<boolean> {
    const line = encodeEntry(entry);
    if (body === undefined) {
      await this.#w.line(line);
    } else {
      const at = line.indexOf(_BODY_MARK);
      await this.#w.text(line.slice(0, at));
      await this.#w.body(body);
      await this.#w.line(line.slice(at + _BODY_MARK.length));
    }
    this.#entries++;
    this.#e.leaf = entry.id;
    this.#recent.push({ id: entry.id, kind, model: this.#e.model });
    if (this.#recent.length > _RECENT_KEPT) this.#recent.shift();
    // With branchBackAtEnd the file does not end before the branch is written.
    return this.#w.bytes >= this.#c.size &&
      (this.#branchAt === undefined || this.#branched);
  }
}
