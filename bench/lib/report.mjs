// The results as people read them: a Markdown report and two SVG plots, written with string
// templates (no plotting dependency).

const kb = (n) => (n == null ? "–" : n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(2)} MB` : `${(n / 1024).toFixed(1)} KB`);
const f3 = (n) => (n == null ? "–" : n.toFixed(3));
const ms = (n) => (n == null ? "–" : n < 10 ? n.toFixed(2) : n.toFixed(1));
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);

const COLORS = { midashi: "#d9480f", minisearch: "#1c7ed6", flexsearch: "#2f9e44", lunr: "#7048e8", orama: "#e8590c99", pagefind: "#495057" };
const color = (key) => COLORS[key] ?? (key?.startsWith("midashi") ? "#c92a2a" : "#868e96");

function table(head, rows) {
  return [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`, ...rows.map((r) => `| ${r.join(" | ")} |`)].join("\n");
}

/** The Markdown report of one run. */
export function markdown(r) {
  const out = [];
  out.push(`# Midashi vs peers — ${r.date}${r.quick ? " (--quick)" : ""}`, "");
  out.push(`Machine: ${r.machine.cpu}, ${r.machine.nproc} cores, ${r.machine.memGiB} GiB, ${r.machine.os}; Node ${r.machine.node}, Chromium ${r.machine.chromium ?? "–"}.`);
  out.push(`Versions: ${Object.entries(r.versions).map(([k, v]) => `${k} ${v}`).join(", ")}.`, "");
  if (r.quality) {
    out.push("## Quality, latency, cold start and index size (BEIR sets)", "");
    out.push("Latency: per query with the index loaded (Node, except Pagefind: in Chromium, as it only runs in a page); for Midashi, whose default (sharded) index is read a file at a time as queries need them, each query runs once untimed to read its files, then is timed — that untimed first run, reading its files from disk, is the \"first run\" column. Midashi and Orama semantic/hybrid (with `--semantic`): Node, both given the same document vectors and the same precomputed query vector, so latency is search and fusion only (encoding: `npm run bench:embed`); ‡ rows run natively with encoding included. Cold start: fresh process (or page) → import + load index + first result, median of 3. Index: the serialised index as shipped, raw / gzip / brotli.", "");
    for (const set of [...new Set(r.quality.map((q) => q.set))]) {
      out.push(`### ${set}`, "");
      const rows = r.quality
        .filter((q) => q.set === set)
        .map((q) =>
          q.skipped
            ? [q.system, `not measured: ${q.skipped}`, "", "", "", "", "", "", "", ""]
            : [
                q.system + (q.where === "chromium" ? " †" : q.where === "native" ? " ‡" : q.where === "python" ? " §" : ""),
                `${f3(q.ndcg10)}`,
                f3(q.recall10),
                f3(q.mrr10),
                `${ms(q.latencyMs.p50)} / ${ms(q.latencyMs.p95)} / ${ms(q.latencyMs.p99)}`,
                q.firstRunMs ? `${ms(q.firstRunMs.p50)} / ${ms(q.firstRunMs.p99)}` : "–",
                ms(q.coldStartMs),
                q.index ? `${kb(q.index.raw)} / ${kb(q.index.gzip)} / ${kb(q.index.brotli)}` : "–",
                q.queries,
              ],
        );
      out.push(table(["system", "nDCG@10", "Recall@10", "MRR@10", "latency p50 / p95 / p99 (ms)", "first run p50 / p99 (ms)", "cold start (ms)", "index raw / gzip / brotli", "queries"], rows), "");
    }
    out.push("† Pagefind: searched in headless Chromium through pagefind.js (no Node search); every query word is required (Pagefind has no OR mode). ‡ native `build-index eval` (query encoding included). § bm25s 0.2 as plain BM25 (k1 1.5, b 0.75, title + text; English: its stemmer and stopwords; other languages: NFKC and CJK bigrams), in Python: rankings only.", "");
  }
  if (r.runtime) {
    out.push("## JS + wasm a page loads (index aside)", "");
    out.push(
      table(
        ["system", "lang", "JS raw / gzip / brotli", "wasm raw / gzip / brotli"],
        r.runtime.map((x) => [x.system, x.lang, `${kb(x.js.raw)} / ${kb(x.js.gzip)} / ${kb(x.js.brotli)}`, x.wasm.files ? `${kb(x.wasm.raw)} / ${kb(x.wasm.gzip)} / ${kb(x.wasm.brotli)}` : "–"]),
      ),
      "",
    );
  }
  if (r.site) {
    const s = r.site;
    out.push(`## Bytes fetched before each query's first result: ${s.corpus} site, Midashi widget vs Pagefind UI`, "");
    out.push("Headless Chromium, empty cache, queries typed in order; only the search's files are counted (/search/ vs /pagefind/). gzip = as a server compressing on the fly would send them (Pagefind's own files are gzip already).", "");
    out.push(
      table(
        ["#", "query", "Midashi bytes (gzip)", "Pagefind bytes (gzip)", "Midashi ms", "Pagefind ms"],
        s.queries.map((q, i) => {
          const m = s.midashi.rows[i];
          const p = s.pagefind.rows[i];
          return [i + 1, `\`${q}\``, `${kb(m.bytes)} (${kb(m.gzip)})`, `${kb(p.bytes)} (${kb(p.gzip)})`, ms(m.ms), ms(p.ms)];
        }),
      ),
      "",
    );
    const tot = (x) => x.rows.reduce((a, q) => ({ bytes: a.bytes + q.bytes, gzip: a.gzip + q.gzip }), { bytes: 0, gzip: 0 });
    const tm = tot(s.midashi);
    const tp = tot(s.pagefind);
    out.push(`Total after ${s.queries.length} queries: Midashi ${kb(tm.bytes)} (${kb(tm.gzip)} gzip), Pagefind ${kb(tp.bytes)} (${kb(tp.gzip)} gzip). Whole folders on disk: Midashi search/ ${kb(s.midashi.folder.raw)} (${kb(s.midashi.folder.gzip)} gzip, source maps and file:// bundle excluded), Pagefind pagefind/ ${kb(s.pagefind.folder.raw)}.`, "");
  }
  if (r.build) {
    out.push("## Build: time and peak memory", "");
    out.push("Own process under /usr/bin/time (wall seconds, max RSS of the process and its children). Midashi: `build-index <dir> --keyword-only` from the Markdown (sections); the others: each page one record (child Node process reading the files; Pagefind through its Node API, whose binary is a child). Index bytes: serialised index (Pagefind: its .pf_ files).", "");
    out.push(
      table(
        ["corpus", "system", "seconds", "peak RSS (MiB)", "index raw / gzip"],
        r.build.map((b) => [b.corpus, b.system, b.failed ? `failed: ${b.failed}` : b.seconds.toFixed(2), b.failed ? "–" : b.peakRssMiB.toFixed(0), b.index ? `${kb(b.index.raw)} / ${kb(b.index.gzip)}` : "–"]),
      ),
      "",
    );
  }
  out.push("## Settings", "");
  for (const [name, s] of Object.entries(r.settings)) out.push(`- **${name}** — en: ${s.en}; ja: ${s.ja}`);
  out.push("", `Run: \`${r.command}\` in ${(r.elapsedMs / 60000).toFixed(1)} min.`, "");
  return out.join("\n");
}

function axisTicks(lo, hi, log) {
  if (log) {
    const ticks = [];
    for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) for (const m of [1, 2, 5]) ticks.push(m * 10 ** e);
    return ticks.filter((t) => t >= lo && t <= hi);
  }
  const step = (hi - lo) / 5;
  return Array.from({ length: 6 }, (_, i) => lo + i * step);
}

/** nDCG@10 against p50 latency (log scale), one panel per evaluation set. */
export function qualityVsLatencySvg(quality) {
  const sets = [...new Set(quality.map((q) => q.set))];
  const W = 460;
  const H = 340;
  const m = { l: 56, r: 16, t: 36, b: 48 };
  const panels = sets.map((set, i) => {
    const pts = quality.filter((q) => q.set === set && !q.skipped && q.latencyMs?.p50 > 0);
    const xs = pts.map((p) => p.latencyMs.p50);
    const lo = Math.min(...xs, 0.1) / 1.5;
    const hi = Math.max(...xs, 1) * 1.5;
    const X = (v) => m.l + ((Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * (W - m.l - m.r);
    const Y = (v) => H - m.b - v * (H - m.t - m.b);
    const g = [`<g transform="translate(${i * W},0)">`, `<text x="${W / 2}" y="20" text-anchor="middle" font-weight="bold">${esc(set)}</text>`];
    for (const t of axisTicks(lo, hi, true)) g.push(`<line x1="${X(t)}" x2="${X(t)}" y1="${m.t}" y2="${H - m.b}" stroke="#eee"/><text x="${X(t)}" y="${H - m.b + 16}" text-anchor="middle" font-size="11">${t}</text>`);
    for (const t of axisTicks(0, 1, false)) g.push(`<line x1="${m.l}" x2="${W - m.r}" y1="${Y(t)}" y2="${Y(t)}" stroke="#eee"/><text x="${m.l - 6}" y="${Y(t) + 4}" text-anchor="end" font-size="11">${t.toFixed(1)}</text>`);
    g.push(`<rect x="${m.l}" y="${m.t}" width="${W - m.l - m.r}" height="${H - m.t - m.b}" fill="none" stroke="#999"/>`);
    g.push(`<text x="${(W + m.l) / 2}" y="${H - 12}" text-anchor="middle" font-size="12">p50 query latency (ms, log)</text>`);
    g.push(`<text transform="translate(16,${(H + m.t - m.b) / 2}) rotate(-90)" text-anchor="middle" font-size="12">nDCG@10</text>`);
    for (const p of pts) {
      const x = X(p.latencyMs.p50);
      const y = Y(p.ndcg10);
      // Labels near the right edge go to the left of their point, so none is cut off.
      const right = x > W - m.r - 90;
      g.push(
        `<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="5" fill="${color(p.key)}"/><text x="${(right ? x - 7 : x + 7).toFixed(1)}" y="${(y - 6).toFixed(1)}" font-size="11" text-anchor="${right ? "end" : "start"}">${esc(p.system.replace(" (native)", ""))}</text>`,
      );
    }
    g.push("</g>");
    return g.join("\n");
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W * sets.length}" height="${H}" font-family="system-ui,sans-serif" viewBox="0 0 ${W * sets.length} ${H}">
<rect width="100%" height="100%" fill="#fff"/>
${panels.join("\n")}
</svg>
`;
}

/** Cumulative search bytes (gzip) after each query, Midashi vs Pagefind, on one site. */
export function bytesPerQuerySvg(site) {
  const W = 640;
  const H = 340;
  const m = { l: 64, r: 120, t: 36, b: 48 };
  const series = [
    { key: "midashi", name: "Midashi (widget)", rows: site.midashi.rows },
    { key: "pagefind", name: "Pagefind (UI)", rows: site.pagefind.rows },
  ];
  const n = site.queries.length;
  const cum = (rows) => rows.reduce((a, r) => [...a, (a.at(-1) ?? 0) + r.gzip], []);
  const max = Math.max(...series.flatMap((s) => cum(s.rows))) * 1.1;
  const X = (i) => m.l + (i / Math.max(1, n - 1)) * (W - m.l - m.r);
  const Y = (v) => H - m.b - (v / max) * (H - m.t - m.b);
  const g = [`<text x="${(W - m.r + m.l) / 2}" y="20" text-anchor="middle" font-weight="bold">${esc(site.corpus)} site: search bytes fetched (gzip), cumulative</text>`];
  for (const t of axisTicks(0, max, false)) g.push(`<line x1="${m.l}" x2="${W - m.r}" y1="${Y(t)}" y2="${Y(t)}" stroke="#eee"/><text x="${m.l - 6}" y="${Y(t) + 4}" text-anchor="end" font-size="11">${Math.round(t / 1024)} KB</text>`);
  for (let i = 0; i < n; i++) g.push(`<text x="${X(i)}" y="${H - m.b + 16}" text-anchor="middle" font-size="11">${i + 1}</text>`);
  g.push(`<rect x="${m.l}" y="${m.t}" width="${W - m.l - m.r}" height="${H - m.t - m.b}" fill="none" stroke="#999"/>`);
  g.push(`<text x="${(W - m.r + m.l) / 2}" y="${H - 12}" text-anchor="middle" font-size="12">query number (first result shown)</text>`);
  for (const s of series) {
    const c = cum(s.rows);
    g.push(`<polyline fill="none" stroke="${color(s.key)}" stroke-width="2" points="${c.map((v, i) => `${X(i).toFixed(1)},${Y(v).toFixed(1)}`).join(" ")}"/>`);
    for (const [i, v] of c.entries()) g.push(`<circle cx="${X(i).toFixed(1)}" cy="${Y(v).toFixed(1)}" r="3" fill="${color(s.key)}"/>`);
    g.push(`<text x="${X(n - 1) + 8}" y="${Y(c.at(-1)) + 4}" font-size="12" fill="${color(s.key)}">${esc(s.name)}</text>`);
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="system-ui,sans-serif" viewBox="0 0 ${W} ${H}">
<rect width="100%" height="100%" fill="#fff"/>
${g.join("\n")}
</svg>
`;
}
