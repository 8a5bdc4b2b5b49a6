#!/usr/bin/env node
// The shape of the Rust tree, checked (scripts/test.sh runs this):
// - no import cycle between the source files of a crate (`use crate::…`, `super::…` and
//   inline `crate::…` paths, resolved through `pub use` re-exports to the file that defines
//   the item);
// - no source file over MAX_LINES lines, counted whole (tests live in sibling files), in the
//   crates and in web/src;
// - ARCHITECTURE.md names every source file (by its path in its crate or package, or by its
//   name on a line that names its folder or, for a crate's top-level files, its crate);
// - no feature gate inside a function body: optional code sits behind a gate on a module
//   (`#[cfg(feature)] mod x;` or `#[cfg_attr(not(feature), path = "x_off.rs")] mod x;`),
//   except the few places listed in GATE_EXCEPTIONS with their reason.
// Why a script rather than a crate: it reads the tree as text, in a second, with nothing to
// install; rustc's own view (cargo-modules) would need a tool download this machine lacks.
//
//   node scripts/check-structure.mjs [--graph]    (--graph prints each file's imports)
import { readFileSync, readdirSync, statSync, existsSync } from "node:fs";
import { join, relative, dirname, basename } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const MAX_LINES = 600;
const CRATES = [
  "crates/midashi-core/src",
  "crates/midashi-markdown/src",
  "crates/midashi-html/src",
  "crates/midashi-embed/src",
  "crates/midashi-wasm/src",
  "crates/midashi-wasm-embed/src",
  "build-index/src",
];
// file → why a feature gate may sit inside a function there.
const GATE_EXCEPTIONS = {
  "crates/midashi-core/src/search/mod.rs":
    "the three accessors of `Store`, whose single-file variant exists only with feature `single-file`",
  "crates/midashi-wasm/src/lib.rs": "the wasm-bindgen surface: which methods each module exports",
};

const graphWanted = process.argv.includes("--graph");
const problems = [];

/** A file counted whole: a module's tests belong in a sibling file, not in its line budget. */
function checkSize(file, text) {
  const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
  if (lines > MAX_LINES) problems.push(`${relative(ROOT, file)}: ${lines} lines (at most ${MAX_LINES}; split it by concern)`);
}

// ARCHITECTURE.md, line by line, and the sections its `## ` headings open.
const ARCH = readFileSync(join(ROOT, "ARCHITECTURE.md"), "utf8")
  .split("\n")
  .reduce(
    (acc, line) => {
      if (line.startsWith("## ")) acc.section = line;
      acc.lines.push({ line, section: acc.section });
      return acc;
    },
    { lines: [], section: "" },
  ).lines;

/**
 * Whether ARCHITECTURE.md names `file` (of the crate or package whose sources are `srcDir`):
 * its path inside the crate (`rank/topk.rs`) anywhere; or its name on a line that names its
 * folder (`rank/` … `topk.rs`); or, for a top-level file, its name on a line or in a section
 * that names the crate (`build-index`, `midashi-core`).
 */
function checkNamed(srcDir, src, file) {
  const rel = relative(src, file);
  // Tests are named by the module they test.
  if (/(^|\/)tests\.rs$|_tests\.rs$/.test(rel)) return;
  const name = basename(file);
  const folder = dirname(rel);
  const crate = srcDir.split("/").filter((p) => p !== "src" && p !== "crates")[0];
  const named = ARCH.some(({ line, section }) => {
    if (line.includes(rel)) return true;
    // A family of files: `widget/strings/<tag>.ts`.
    for (const m of line.matchAll(/`([\w./-]*<[\w-]+>[\w./-]*)`/g)) {
      const pattern = m[1].replace(/[.]/g, "\\.").replace(/<[\w-]+>/g, "[\\w-]+");
      if (new RegExp(`(^|/)${pattern}$`).test(rel)) return true;
    }
    if (!new RegExp(`\\b${name.replace(".", "\\.")}\\b`).test(line)) return false;
    if (folder === ".") return line.includes(crate) || section.includes(crate);
    return line.includes(`${folder}/`) || line.includes(`${basename(folder)}/`);
  });
  if (!named) problems.push(`${relative(ROOT, file)}: not named in ARCHITECTURE.md (say what it is for, beside its module)`);
}

/** web/src's TypeScript files, for sizes and names. */
function tsFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...tsFiles(p));
    else if (name.endsWith(".ts") && !name.endsWith(".d.ts")) out.push(p);
  }
  return out;
}
for (const f of tsFiles(join(ROOT, "web/src"))) {
  checkSize(f, readFileSync(f, "utf8"));
  checkNamed("web/src", join(ROOT, "web/src"), f);
}

function rsFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...rsFiles(p));
    else if (name.endsWith(".rs")) out.push(p);
  }
  return out;
}

/** Source without comments and string contents (so paths in docs do not count). */
function code(text) {
  // One pass, so whichever of a comment, a string or a char literal starts first wins
  // (a glob "**/*.md" is a string, a URL in a comment is a comment).
  return text.replace(
    /\/\/[^\n]*|\/\*[\s\S]*?\*\/|r(#*)"[\s\S]*?"\1|"(?:[^"\\]|\\[\s\S])*"|'(?:[^'\\\n]|\\[^']*)'/g,
    (m) => (m.startsWith("/") ? "" : '""'),
  );
}

/** The text before a trailing `#[cfg(test)] mod …` (tests may import anything). */
function withoutTests(text) {
  const m = /^#\[cfg\(test\)\]\s*\n\s*mod\s+\w+/m.exec(text);
  return m ? text.slice(0, m.index) : text;
}

/** Module path of a file: src/a/b.rs and src/a/b/mod.rs → ["a", "b"]. */
function modulePath(src, file) {
  const rel = relative(src, file).replace(/\.rs$/, "").split("/");
  if (rel[rel.length - 1] === "mod") rel.pop();
  if (rel.length === 1 && (rel[0] === "lib" || rel[0] === "main")) return [];
  return rel;
}

/** Expands a use tree (`a::{b, c::{d, e}}`) into paths. */
function expandUse(tree) {
  tree = tree.replace(/\s+/g, "");
  const brace = tree.indexOf("{");
  if (brace < 0) return [tree.replace(/::\*$/, "").replace(/\bas\w+$/, "")];
  const prefix = tree.slice(0, brace);
  const inner = tree.slice(brace + 1, tree.lastIndexOf("}"));
  const parts = [];
  let depth = 0;
  let cur = "";
  for (const ch of inner) {
    if (ch === "{") depth++;
    if (ch === "}") depth--;
    if (ch === "," && depth === 0) {
      parts.push(cur);
      cur = "";
    } else cur += ch;
  }
  if (cur) parts.push(cur);
  return parts.flatMap((p) => (p === "self" ? [prefix.replace(/::$/, "")] : expandUse(prefix + p)));
}

for (const crateDir of CRATES) {
  const src = join(ROOT, crateDir);
  if (!existsSync(src)) continue;
  const files = rsFiles(src);
  const byModule = new Map(); // "a::b" → file
  const info = new Map(); // file → { mod, text, reexports }
  for (const f of files) {
    const mod = modulePath(src, f);
    const raw = readFileSync(f, "utf8");
    const isTest = basename(f) === "tests.rs" || /(^|\/)tests\//.test(relative(src, f));
    byModule.set(mod.join("::"), f);
    info.set(f, { mod, raw, isTest, text: code(withoutTests(raw)) });
  }
  // name → the path it re-exports, per module file.
  for (const [, i] of info) {
    i.reexports = new Map();
    for (const m of i.text.matchAll(/\bpub(?:\([^)]*\))?\s+use\s+([^;]+);/g)) {
      for (const p of expandUse(m[1])) {
        const name = p.split("::").pop();
        i.reexports.set(name, p);
      }
    }
  }

  /** Absolute segments of path `p` used in module `mod`. */
  function absolute(mod, p) {
    const segs = p.split("::").filter(Boolean);
    if (segs[0] === "crate") return segs.slice(1);
    if (segs[0] === "self") return [...mod, ...segs.slice(1)];
    if (segs[0] === "super") {
      const base = [...mod];
      while (segs[0] === "super") {
        base.pop();
        segs.shift();
      }
      return [...base, ...segs];
    }
    return null; // an external crate or a local name
  }

  /** The file that defines what `segs` names (following re-exports), and the rest. */
  function resolve(segs, seen = 0) {
    let n = segs.length;
    while (n > 0 && !byModule.has(segs.slice(0, n).join("::"))) n--;
    const file = byModule.get(segs.slice(0, n).join("::"));
    if (!file) return null;
    const next = segs[n];
    const re = next && info.get(file).reexports.get(next);
    if (re && seen < 8) {
      const target = absolute(info.get(file).mod, re);
      if (target) {
        const r = resolve([...target, ...segs.slice(n + 1)], seen + 1);
        if (r) return r;
      }
    }
    return file;
  }

  const edges = new Map();
  for (const [f, i] of info) {
    const deps = new Set();
    if (!i.isTest) {
      const paths = [];
      for (const m of i.text.matchAll(/\buse\s+([^;]+);/g)) paths.push(...expandUse(m[1]));
      for (const m of i.text.matchAll(/\b(?:crate|super)(?:::\w+)+/g)) paths.push(m[0]);
      for (const p of paths) {
        const segs = absolute(i.mod, p);
        if (!segs) continue;
        const target = resolve(segs);
        if (target && target !== f) deps.add(target);
      }
    }
    edges.set(f, deps);

    checkSize(f, i.raw);
    checkNamed(crateDir, src, f);
    // Feature gates inside function bodies (8+ spaces deep).
    const rel = relative(ROOT, f);
    if (!i.isTest && !GATE_EXCEPTIONS[rel]) {
      withoutTests(i.raw)
        .split("\n")
        .forEach((line, n) => {
          if (/^ {8,}(#\[cfg\((not\()?feature|.*cfg!\((not\()?feature)/.test(line)) {
            problems.push(`${rel}:${n + 1}: a feature gate inside a function; gate a module instead`);
          }
        });
    }
  }

  if (graphWanted) {
    for (const [f, deps] of edges) {
      console.log(`${relative(ROOT, f)} → ${[...deps].map((d) => relative(src, d)).join(", ")}`);
    }
  }

  // Tarjan's strongly connected components: each of more than one file is a cycle.
  let index = 0;
  const stack = [];
  const meta = new Map();
  const sccs = [];
  function strong(v) {
    meta.set(v, { index, low: index, on: true });
    index++;
    stack.push(v);
    for (const w of edges.get(v) ?? []) {
      if (!meta.has(w)) {
        strong(w);
        meta.get(v).low = Math.min(meta.get(v).low, meta.get(w).low);
      } else if (meta.get(w).on) {
        meta.get(v).low = Math.min(meta.get(v).low, meta.get(w).index);
      }
    }
    if (meta.get(v).low === meta.get(v).index) {
      const scc = [];
      let w;
      do {
        w = stack.pop();
        meta.get(w).on = false;
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) sccs.push(scc);
    }
  }
  for (const v of edges.keys()) if (!meta.has(v)) strong(v);
  for (const scc of sccs) {
    problems.push(`${crateDir}: import cycle among ${scc.map((f) => relative(src, f)).sort().join(", ")}`);
  }
}

if (problems.length) {
  for (const p of problems) console.error(p);
  console.error(`structure: ${problems.length} problem(s)`);
  process.exit(1);
}
console.log(
  `structure: ${CRATES.length} crates and web/src, no import cycle, no file over ${MAX_LINES} lines, every file named in ARCHITECTURE.md, no feature gate in a function body`,
);
