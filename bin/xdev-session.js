#!/usr/bin/env node
// The package's command for Node and Bun (package.json's "bin"): cli.ts's
// `main`, run with the process's arguments, streams and exit code. Node
// strips cli.ts's types itself (Node >= 22.18); Bun runs TypeScript as is.
import { main } from "../cli.ts";
import { runProcess } from "../src/cli/_io.ts";

await runProcess(main);
