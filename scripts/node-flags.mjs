// The node flags Ninepoint's own launchers give the server: `npm start` (scripts/start.mjs), the
// Docker image (its `NODE_OPTIONS`, which e2e/dockerfile.test.ts checks against this list), the
// benchmarks' served servers and the reliability suites' servers.
//
// `--max-semi-space-size=16` caps V8's young generation at 16 MiB a half. Left to itself on a
// machine of 24 GB, V8 grows it to 64 MiB a half under load: a server's resident memory climbed by
// 97 MB over 100,000 requests after a warm-up, and by 31 MB with the cap, at the same CPU per
// answer (docs/deploy.md, "Memory"; docs/benchmarks.md, "The fourth day's runs"). The `ninepoint`
// command's own first line stays `#!/usr/bin/env node`: BusyBox's env (Alpine) has no `-S`.

/** Node's flags for a server Ninepoint starts, e.g. `['--max-semi-space-size=16']`. */
export const NODE_FLAGS = Object.freeze(['--max-semi-space-size=16']);
