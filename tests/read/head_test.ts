import assert from "node:assert/strict";
import { SessionSyntaxError } from "../../src/format/errors.ts";
import { IssueLog } from "../../src/read/_decode.ts";
import { type Head, parseHead } from "../../src/read/_head.ts";
import { HEADER, sessionBytes, user } from "../_session_files.ts";

const enc = new TextEncoder();

/** The head of `bytes`, or the reason there is none. */
function headOf(
  bytes: Uint8Array,
  complete = true,
): Head | { reason: string } {
  try {
    return parseHead(bytes, { name: "t.jsonl", complete });
  } catch (err) {
    if (err instanceof SessionSyntaxError) return { reason: err.reason };
    throw err;
  }
}

Deno.test("parseHead() reads the slot and the header from a file's first bytes", async (t) => {
  const slotted = sessionBytes([user("00000001", null, "hi")]);
  await t.step("slot then header", () => {
    const head = headOf(slotted);
    assert.ok("header" in head);
    assert.equal(head.slot?.title, "A test session");
    assert.equal(head.slotState, "ok");
    assert.deepEqual(head.header, HEADER);
    assert.equal(head.bodyStart, slotted.indexOf(10, 256) + 1);
    assert.equal(head.lines, 2);
  });
  await t.step(
    "a header cut at the end of the bytes read is incomplete",
    () => {
      assert.deepEqual(headOf(slotted.subarray(0, 300), false), {
        reason: "no complete header within the first 300 bytes",
      });
    },
  );
  await t.step(
    "a header without its newline at the end of the file is complete",
    () => {
      const bytes = sessionBytes([], { slot: false });
      const head = headOf(bytes.subarray(0, bytes.length - 1));
      assert.ok("header" in head && head.slot === undefined);
      assert.equal(head.slotState, "absent");
    },
  );
  await t.step("CRLF line ends", () => {
    const text = new TextDecoder().decode(slotted).replaceAll("\n", "\r\n");
    const head = headOf(enc.encode(text));
    assert.ok("header" in head && head.slot !== undefined);
  });
  await t.step(
    "a malformed slot is passed over; the header is on line 2",
    () => {
      const bytes = enc.encode(
        `{"type":"title","v":2}\n${JSON.stringify(HEADER)}\n`,
      );
      const log = new IssueLog();
      const head = parseHead(bytes, { name: "t.jsonl", complete: true, log });
      assert.equal(head.slot, undefined);
      assert.equal(head.slotState, "malformed");
      assert.deepEqual(log.issues.map((i) => i.kind), ["title-slot"]);
    },
  );
  await t.step("what is not a header says why", () => {
    assert.deepEqual(headOf(new Uint8Array(0)), {
      reason: "the file is empty",
    });
    assert.deepEqual(headOf(sessionBytes([], { header: "{oops" })), {
      reason: "the header is not JSON",
    });
    assert.deepEqual(
      headOf(sessionBytes([], { header: { ...HEADER, id: "" } })),
      { reason: "the header has no id" },
    );
    assert.deepEqual(headOf(sessionBytes([]).subarray(0, 256)), {
      reason: "the header is missing",
    });
  });
  await t.step(
    "the error names the file and the line, never the content",
    () => {
      const bytes = sessionBytes([], { header: { type: "secret-content" } });
      assert.throws(
        () => parseHead(bytes, { name: "t.jsonl", complete: true }),
        (err) => {
          assert.ok(err instanceof SessionSyntaxError);
          assert.equal(err.line, 2);
          assert.equal(err.offset, 256);
          assert.ok(!err.message.includes("secret-content"));
          return true;
        },
      );
    },
  );
});
