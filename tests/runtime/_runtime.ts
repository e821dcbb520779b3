/**
 * Which runtime runs the script, by what it defines: the one test of it
 * the runtime scripts share.
 *
 * @module
 */

/** `bun`, `deno` or `node`. */
export const RUNTIME: "bun" | "deno" | "node" = "Bun" in globalThis
  ? "bun"
  : "Deno" in globalThis
  ? "deno"
  : "node";
