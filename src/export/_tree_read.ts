/**
 * The tree export's first pass: the file read once as a stream, each entry
 * rendered as it comes into a scratch file, only its envelope kept.
 *
 * @module
 */

import { type ContextMessage, toMessage } from "../context/messages.ts";
import {
  BRANCH_MARKER_TYPE,
  branchMarkerTarget,
  type OpaqueEntry,
  type SessionEntry,
} from "../format/entries.ts";
import type { SessionHeader } from "../format/header.ts";
import type { TitleSlot } from "../format/title_slot.ts";
import { SessionEntryStream } from "../read/entry_stream.ts";
import type { ExportJob } from "./_job.ts";
import type { IssueTally, MetaCollector } from "./_meta.ts";
import type { Scratch } from "./_scratch.ts";

/** What pass one keeps of the file: envelopes, and where each rendering is. */
export interface TreeRead {
  slot: TitleSlot | undefined;
  header: SessionHeader | undefined;
  /** Envelopes (a branch marker keeps its target too), in file order. */
  nodes: OpaqueEntry[];
  /** Where each entry's rendering starts in the scratch file, -1 for none. */
  at: number[];
  /** Its length in bytes. */
  length: number[];
  messages: number;
}
/**
 * Read the whole file, rendering each entry into `scratch`.
 *
 * @param job The export.
 * @param scratch An empty scratch file.
 * @param tally Where damage is counted.
 * @param meta Where models and dates are noted.
 * @returns The envelopes, and where each rendering is.
 */
export async function readTree(
  job: ExportJob,
  scratch: Scratch,
  tally: IssueTally,
  meta: MetaCollector,
): Promise<TreeRead> {
  const out: TreeRead = {
    slot: undefined,
    header: undefined,
    nodes: [],
    at: [],
    length: [],
    messages: 0,
  };
  using file = await Deno.open(job.path);
  const size = (await file.stat()).size;
  const records = file.readable.pipeThrough(
    new SessionEntryStream({ name: job.path, onIssue: (i) => tally.add(i) }),
  );
  for await (const r of records) {
    job.progress(r.offset + r.size, size, "bytes");
    if (r.kind === "title") out.slot = r.value;
    else if (r.kind === "header") out.header = r.value;
    else {
      const fragment = await _render(job, r.value, meta);
      if (fragment.message) out.messages++;
      out.nodes.push(_envelope(r.value));
      if (fragment.text === "") {
        out.at.push(-1);
        out.length.push(0);
      } else {
        const { at, length } = await scratch.append(fragment.text);
        out.at.push(at);
        out.length.push(length);
      }
    }
  }
  await scratch.flush();
  return out;
}

function _envelope(e: SessionEntry): OpaqueEntry {
  const node: OpaqueEntry = {
    type: e.type,
    id: e.id,
    parentId: e.parentId,
    timestamp: e.timestamp,
  };
  const to = branchMarkerTarget(e);
  if (to !== undefined) {
    node.customType = BRANCH_MARKER_TYPE;
    node.data = { to };
  }
  return node;
}

/** An entry's rendering: a message, a note for a setting, or nothing. */
async function _render(
  job: ExportJob,
  e: SessionEntry,
  meta: MetaCollector,
): Promise<{ text: string; message: boolean }> {
  const { renderer } = job;
  const m: ContextMessage | undefined = toMessage(e, {});
  if (m !== undefined) {
    meta.message(m);
    return { text: await renderer.message(m), message: true };
  }
  const note = (text: string) => ({
    text: renderer.note(text),
    message: false,
  });
  switch (e.type) {
    case "model_change":
      meta.model(e.model);
      return note(
        `Model: ${String(e.model)}${
          typeof e.role === "string" ? ` (${e.role})` : ""
        }`,
      );
    case "thinking_level_change":
      return note(`Thinking level: ${String(e.thinkingLevel)}`);
    case "reset_boundary":
      return note(
        "Context reset: nothing before this point reaches the model.",
      );
    case "title_change":
      return note(`Renamed: ${String(e.title)}`);
    default:
      return { text: "", message: false };
  }
}
