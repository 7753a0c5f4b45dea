/**
 * The Node.js flags the server runs with (`npm start` passes them; the benches start our server with
 * them too, `childNodeFlags` in bench/basics.ts; test/unit/platform/node-flags.test.ts keeps the two equal).
 *
 * `--max-semi-space-size=64`: V8's young generation grows to 64 MiB per semi-space instead of Node 20's
 * 16. A fork-tree read of 2,551 blueprints allocates several MiB of short-lived objects (the statement's
 * JSON, the connections, the response); with ten such requests in flight, the default young generation
 * filled between their start and their end, so those objects survived scavenges and were promoted, and the
 * old generation's collections traced them. Measured with `bench:lineage` (breadth 50, alternating runs of
 * three rounds): 0.72x and 0.77x of the SQL floor with the default, 0.82x and 0.91x with 64 MiB, and the
 * server's CPU per request 5.3-6.7 ms against 4.6-5.2 ms (docs/benchmarks.md, twenty-second session). The
 * cost is memory: up to about 128 MiB more resident memory under load (two semi-spaces), nothing when idle.
 */
export const serverNodeFlags: readonly string[] = ['--max-semi-space-size=64'];
