// One cold start, in a fresh process: import the system, read its serialised index from disk,
// load it, answer one query. Prints `{ ms, first }` (ms from this script's first line).
//
//   node bench/cold-start.mjs <system> <index-dir> <lang> <query>
const started = performance.now();
const [system, dir, lang, query] = process.argv.slice(2);
const { readTree } = await import("./lib/sizes.mjs");
const { NODE_SYSTEMS } = await import("./systems/index.mjs");
const sys = NODE_SYSTEMS[system];
const engine = await sys.load(readTree(dir), lang);
const first = await sys.search(engine, query, 10, lang);
const ms = performance.now() - started;
sys.close?.(engine);
console.log(JSON.stringify({ ms, first: first[0] ?? null }));
