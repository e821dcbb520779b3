import { deepEqual, equal, throws } from "node:assert/strict";
import type * as native from "../../src/format/_encoding.ts";

/**
 * The module loaded again (a fresh instance, by its query) while the
 * runtime's methods are hidden: its fallbacks, as Node 22 runs them.
 */
async function fallbacks(): Promise<typeof native> {
  const proto = Uint8Array.prototype as unknown as Record<string, unknown>;
  const ctor = Uint8Array as unknown as Record<string, unknown>;
  const saved = [proto.toHex, proto.toBase64, ctor.fromBase64];
  delete proto.toHex;
  delete proto.toBase64;
  delete ctor.fromBase64;
  try {
    return await import("../../src/format/_encoding.ts?fallbacks");
  } finally {
    [proto.toHex, proto.toBase64, ctor.fromBase64] = saved;
  }
}

const plain = await fallbacks();

Deno.test("the hex and base64 fallbacks give what the runtime's methods give", () => {
  for (const n of [0, 1, 2, 3, 31, 32, 33, 70_000]) {
    const bytes = new Uint8Array(n);
    for (let i = 0; i < n; i += 65_536) {
      crypto.getRandomValues(bytes.subarray(i, i + 65_536));
    }
    equal(plain.toHex(bytes), bytes.toHex(), `toHex of ${n} bytes`);
    const b64 = bytes.toBase64();
    equal(plain.toBase64(bytes), b64, `toBase64 of ${n} bytes`);
    deepEqual(plain.fromBase64(b64), bytes, `fromBase64 of ${n} bytes`);
  }
});

Deno.test("fromBase64's fallback takes and refuses what Uint8Array.fromBase64 does", () => {
  for (const text of ["YQ", "YWI", "YQ==", " Y Q = =\n", "", "YWJj"]) {
    deepEqual(plain.fromBase64(text), Uint8Array.fromBase64(text), text);
  }
  for (const text of ["Y", "YQ=", "YQ===", "Y=Q=", "YQ$=", "YQ==YQ==", "é"]) {
    throws(() => Uint8Array.fromBase64(text), SyntaxError, `native: ${text}`);
    throws(() => plain.fromBase64(text), SyntaxError, `fallback: ${text}`);
  }
});
