import assert from "node:assert/strict";
import fc from "fast-check";
import {
  EnvelopeAt,
  readEnvelope,
  text,
  typeName,
  WantedId,
} from "../../src/read/_envelope.ts";

const encode = (s: string): Uint8Array => new TextEncoder().encode(s);

/** Whether JSON writes `s` with an escape (a quote, a backslash, a control character). */
const escaped = (s: string): boolean =>
  [...s].some((c) => c === "\\" || c === '"' || c.charCodeAt(0) < 0x20);

Deno.test("text() gives the field's characters, whatever its length and bytes", () => {
  fc.assert(
    fc.property(
      // Ids of 8 characters are made in one piece: weight them.
      fc.oneof(
        fc.string({ minLength: 8, maxLength: 8 }),
        fc.stringMatching(/^[0-9a-f]{8}$/),
        fc.string({ maxLength: 20 }),
        fc.string({ maxLength: 20, unit: "grapheme" }),
      ),
      fc.nat({ max: 5 }),
      (s, pad) => {
        const bytes = encode(s);
        const framed = new Uint8Array(pad + bytes.length + 3);
        framed.set(bytes, pad);
        assert.equal(text(framed, pad, pad + bytes.length), s);
      },
    ),
  );
});

Deno.test("typeName() shares the known types' strings and decodes others", () => {
  for (const name of ["message", "label", "compaction", "custom_message"]) {
    const bytes = encode(`xx${name}yy`);
    assert.equal(typeName(bytes, 2, 2 + name.length), name);
  }
  for (const name of ["messagf", "labels", "ünknown", ""]) {
    const bytes = encode(name);
    assert.equal(typeName(bytes, 0, bytes.length), name);
  }
});

Deno.test("an envelope's id, parent and type read from the bytes equal the parsed line's", () => {
  fc.assert(
    fc.property(
      fc.string({ minLength: 1, maxLength: 30 }),
      fc.stringMatching(/^[0-9a-f]{8}$/),
      fc.option(fc.string({ maxLength: 12 })),
      (type, id, parent) => {
        const line = JSON.stringify({ type, id, parentId: parent, x: 1 });
        const bytes = encode(line);
        const at = new EnvelopeAt();
        if (!readEnvelope(bytes, 0, bytes.length, at)) {
          // Refused only where a field holds an escape (or is empty).
          assert.ok(escaped(type + (parent ?? "")) || parent === "", line);
          return;
        }
        assert.equal(at.type(), type);
        assert.equal(at.id(), id);
        assert.equal(at.parentId(), parent);
      },
    ),
  );
});

Deno.test("WantedId matches exactly the envelopes carrying its id, held as a hex key or as text", () => {
  // An id: 8 hex digits (held as a number), or anything else (held as text).
  const anyId = fc.oneof(
    fc.stringMatching(/^[0-9a-f]{8}$/),
    fc.stringMatching(/^[0-9a-fA-F]{7,9}$/),
    fc.string({ minLength: 1, maxLength: 12 }),
  );
  fc.assert(
    fc.property(anyId, anyId, fc.option(anyId), (wanted, id, parent) => {
      const bytes = encode(
        JSON.stringify({ type: "message", id, parentId: parent }),
      );
      const at = new EnvelopeAt();
      if (!readEnvelope(bytes, 0, bytes.length, at)) return; // an escape
      const w = new WantedId();
      w.set(wanted);
      assert.equal(w.id, wanted);
      assert.equal(w.matches(at), wanted === id);
      // Wanting the line's parent, from its bytes: the same id as its text.
      w.setParent(at);
      assert.equal(w.id, parent);
      if (parent !== null) {
        const child = encode(
          JSON.stringify({ type: "x", id: parent, parentId: null }),
        );
        assert.ok(readEnvelope(child, 0, child.length, at));
        assert.equal(w.matches(at), true);
      }
      w.set(null);
      assert.equal(w.id, null);
      assert.equal(w.matches(at), false);
    }),
  );
});
