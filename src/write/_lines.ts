/**
 * A batch of lines as the bytes of one write.
 *
 * @module
 */

const _encoder = new TextEncoder();

/** `"\n"`. */
export const NEWLINE = 10;

/**
 * Encodes a batch as `line\n…` into one buffer (`encodeInto`, about twice
 * as fast as encoding the joined string for a large batch).
 *
 * @param lines The lines, each without its `"\n"`.
 * @param action What the caller does, for errors.
 * @returns The bytes; undefined for an empty batch.
 * @throws {TypeError} When `lines` is not an array of strings or a line
 * contains `"\n"` (the message names the line's index, never its content).
 */
export function encodeLines(
  lines: readonly string[],
  action: string,
): Uint8Array | undefined {
  if (!Array.isArray(lines)) {
    throw new TypeError(`${action}: lines is not an array`);
  }
  let chars = 0;
  let longest = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (typeof line !== "string") {
      throw new TypeError(`${action}: line ${i} of the batch is not a string`);
    }
    if (line.includes("\n")) {
      throw new TypeError(`${action}: line ${i} of the batch contains "\\n"`);
    }
    chars += line.length + 1;
    if (line.length > longest) longest = line.length;
  }
  if (lines.length === 0) return undefined;
  // Room for mostly ASCII text, plus the worst case (3 bytes per UTF-16
  // unit) of one line; grown when the text is not mostly ASCII.
  let buf = new Uint8Array(Math.ceil(chars * 1.1) + 3 * longest + 1);
  let at = 0;
  for (const line of lines) {
    const need = at + 3 * line.length + 1;
    if (need > buf.length) {
      const bigger = new Uint8Array(Math.max(need, buf.length * 2));
      bigger.set(buf.subarray(0, at));
      buf = bigger;
    }
    at += _encoder.encodeInto(line, buf.subarray(at)).written;
    buf[at++] = NEWLINE;
  }
  return buf.subarray(0, at);
}
