// A search scan's helper that claims every file it can, reports them all
// done, then dies without posting its hits (search_helpers_test.ts).
import { PieceClaims } from "../../src/fs/_threads.ts";
import type {
  ScanHelperReply,
  ScanHelperStart,
} from "../../src/search/_scan_files.ts";

const scope = globalThis as unknown as {
  onmessage: ((e: MessageEvent<ScanHelperStart>) => void) | null;
  postMessage(message: ScanHelperReply): void;
};
scope.onmessage = (e) => {
  const claims = new PieceClaims(e.data.paths.length, e.data.claims);
  let progress = 0;
  while (claims.back() !== -1) progress++;
  scope.postMessage({ progress, done: false });
  setTimeout(() => {
    throw new Error("this helper dies after reporting the files it claimed");
  }, 50);
};
