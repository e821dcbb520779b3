/**
 * The end of the first JSON value in a text, for a line holding two objects
 * glued together: what omp leaves when it appends after a line that lacks
 * its newline. omp keeps the first object; so do we.
 *
 * @module
 */

/**
 * Where the first top-level JSON object or array of `text` ends (just past
 * its closing bracket), found by matching brackets outside strings; -1 when
 * it does not close. Whether it is valid JSON is for `JSON.parse` to say.
 *
 * @param text A line's text, starting with `{` or `[`.
 * @returns The index just past the first value, or -1.
 */
export function firstValueEnd(text: string): number {
  const open = text.charCodeAt(0);
  if (open !== 0x7b && open !== 0x5b) return -1;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      if (--depth === 0) return i + 1;
    }
  }
  return -1;
}
