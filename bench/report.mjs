// Re-renders the Markdown report and the SVG plots of a results file (after a change to the
// report's layout, without measuring again):
//
//   node bench/report.mjs bench/results/<date>.json
import { readFileSync, writeFileSync } from "node:fs";
import { bytesPerQuerySvg, markdown, qualityVsLatencySvg } from "./lib/report.mjs";

const file = process.argv[2];
if (!file?.endsWith(".json")) {
  console.error("usage: node bench/report.mjs bench/results/<date>.json");
  process.exit(2);
}
const result = JSON.parse(readFileSync(file, "utf8"));
const base = file.slice(0, -".json".length);
writeFileSync(`${base}.md`, markdown(result));
if (result.quality) writeFileSync(`${base}-quality-latency.svg`, qualityVsLatencySvg(result.quality));
if (result.site) writeFileSync(`${base}-bytes-per-query.svg`, bytesPerQuerySvg(result.site));
console.error(`report: wrote ${base}.md and its plots`);
