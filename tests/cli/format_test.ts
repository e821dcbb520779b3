import { equal } from "node:assert/strict";
import {
  formatBytes,
  formatBytesOf,
  sanitize,
  textWidth,
  truncate,
} from "../../src/cli/_format.ts";

Deno.test("textWidth() counts terminal cells", () => {
  equal(textWidth("abc"), 3);
  equal(textWidth("去掉全局"), 8);
  equal(textWidth("결과"), 4);
  equal(textWidth("🛠️"), 2);
  equal(textWidth("🐛🐛"), 4);
  equal(textWidth("e\u0301"), 1);
  equal(textWidth("✓"), 1);
});

Deno.test("truncate() cuts at a grapheme and marks the cut", () => {
  equal(truncate("hello world", 20), "hello world");
  equal(truncate("hello world", 6), "hello…");
  equal(truncate("/home/ann/src/app", 8, "start"), "…src/app");
  equal(truncate("去掉全局", 6), "去掉…");
  equal(truncate("🛠️🛠️", 4), "🛠️🛠️");
  equal(truncate("🛠️🛠️", 3), "🛠️…");
  equal(truncate("abc", 0), "");
});

Deno.test("sanitize() keeps text and drops control characters", () => {
  equal(sanitize("ok ✓"), "ok ✓");
  equal(sanitize("a\u0007b\u009bc\u2028d"), "a b c d");
});

Deno.test("formatBytes() uses the binary units gen --size reads", () => {
  equal(formatBytes(0), "0 B");
  equal(formatBytes(1023), "1023 B");
  equal(formatBytes(1536), "1.5 KB");
  equal(formatBytes(100 * 1024 * 1024), "100.0 MB");
  equal(formatBytes(3 * 1024 ** 3), "3.0 GB");
});

Deno.test("formatBytesOf() puts both counts in the total's unit", () => {
  equal(formatBytesOf(45 * 1024 * 1024, 100 * 1024 * 1024), "45.0/100.0 MB");
  equal(formatBytesOf(0, 2 * 1024 * 1024), "0.0/2.0 MB");
  equal(formatBytesOf(12, 1000), "12/1000 B");
});
