// The generators the scenario test builds the site with, declared: the exact packages, the
// files of a project (the scenario's pages, the config that names the chrome words the test
// must never find, the exclusion control, and the search box put into the theme as
// docs/generators/<name>.md shows), the build, and where its output is.

import { join } from "node:path";
import { cargoInstalled, run } from "./harness.mjs";

/** `# Title` first line → [title, rest]. */
function splitTitle(md) {
  const m = /^# (.+)\n+/.exec(md);
  return m ? [m[1], md.slice(m[0].length)] : [undefined, md];
}

const identity = (url) => url;

export const GENERATORS = [
  {
    name: "mdbook",
    // From crates.io, as mdBook ships.
    // Without `serve`, `watch` and `search` (a web server, a file watcher, mdBook's own
    // search): `mdbook build` is all a scenario runs, with 97 crates to compile, not 250.
    install: () => cargoInstalled("mdbook", "0.4.52", { args: ["--no-default-features"] }),
    home: "/index.html",
    file: identity,
    files(pages) {
      const files = {};
      for (const [path, md] of Object.entries(pages)) {
        // mdBook has no per-page head: the chapter's content is wrapped in the control.
        files[`src/${path}`] = path === "internal/secret.md" ? `<div data-midashi-ignore>\n\n${md}\n</div>\n` : md;
      }
      files["src/SUMMARY.md"] = `# Summary

[Orbit Docs](index.md)

# Sidebarlabelword

- [Getting Started](guide/getting-started.md)
- [Deploying Orbit](guide/deployment.md)
- [はじめに](ja/guide/getting-started.md)
- [Internal Runbook](internal/secret.md)
`;
      files["book.toml"] = `[book]
title = "Orbit"
language = "en"

[output.html]
additional-js = ["midashi-box.js"]

[output.html.search]
enable = false
`;
      files["midashi-box.js"] = `// mdBook defines path_to_root ("", "../", …) on every page.
const root = new URL(typeof path_to_root === "string" ? path_to_root : "./", location.href);
const box = document.createElement("midashi-search");
box.setAttribute("index", new URL("search/", root).href);
document.querySelector(".right-buttons")?.prepend(box);
const script = document.createElement("script");
script.type = "module";
script.src = new URL("search/midashi.js", root).href;
document.head.append(script);
`;
      return files;
    },
    build(mdbook, site) {
      run(mdbook, ["build", site, "--dest-dir", join(site, "book")], { cwd: site });
      return join(site, "book");
    },
  },
  {
    name: "vitepress",
    packages: ["vitepress@1.6.4", "vue@3.5.45"],
    home: "/",
    file: identity,
    files(pages) {
      const files = {};
      for (const [path, md] of Object.entries(pages)) {
        files[`docs/${path}`] =
          path === "internal/secret.md"
            ? // VitePress: a page's own <head> entries from its frontmatter.
              `---\nhead:\n  - - meta\n    - name: robots\n      content: noindex\n---\n\n${md}`
            : md;
      }
      files["docs/.vitepress/config.mts"] = `import { defineConfig } from "vitepress";
export default defineConfig({
  title: "Orbit",
  cleanUrls: true,
  head: [["script", { type: "module", src: "/search/midashi.js" }]],
  vue: { template: { compilerOptions: { isCustomElement: (tag) => tag.startsWith("midashi-") } } },
  themeConfig: {
    nav: [{ text: "Navlinkword", link: "/guide/getting-started" }],
    sidebar: [{ text: "Sidebarlabelword", items: [
      { text: "Getting Started", link: "/guide/getting-started" },
      { text: "Deploying", link: "/guide/deployment" },
      { text: "はじめに", link: "/ja/guide/getting-started" }] }],
    footer: { message: "Footerwordzz" },
  },
});
`;
      files["docs/.vitepress/theme/index.ts"] = `import DefaultTheme from "vitepress/theme";
import { h } from "vue";
export default {
  extends: DefaultTheme,
  Layout: () => h(DefaultTheme.Layout, null, {
    "nav-bar-content-before": () => h("midashi-search", { index: "/search/" }),
  }),
};
`;
      return files;
    },
    build(dir, site) {
      run(join(dir, "node_modules", ".bin", "vitepress"), ["build", "docs"], { cwd: site });
      return join(site, "docs", ".vitepress", "dist");
    },
  },
  {
    name: "starlight",
    packages: ["astro@5.18.2", "@astrojs/starlight@0.37.7"],
    home: "/",
    file: identity,
    files(pages) {
      const files = {};
      for (const [path, md] of Object.entries(pages)) {
        // Starlight takes the page title from frontmatter and renders it as the <h1>.
        const [title, body] = splitTitle(md);
        const head =
          path === "internal/secret.md"
            ? "head:\n  - tag: meta\n    attrs:\n      name: robots\n      content: noindex\n"
            : "";
        const target = path === "index.md" ? "index.md" : path;
        files[`src/content/docs/${target}`] = `---\ntitle: ${title}\n${head}---\n\n${body}`;
      }
      files["src/content.config.ts"] = `import { defineCollection } from "astro:content";
import { docsLoader } from "@astrojs/starlight/loaders";
import { docsSchema } from "@astrojs/starlight/schema";
export const collections = { docs: defineCollection({ loader: docsLoader(), schema: docsSchema() }) };
`;
      files["astro.config.mjs"] = `import { defineConfig } from "astro/config";
import starlight from "@astrojs/starlight";
export default defineConfig({
  integrations: [starlight({
    title: "Orbit",
    pagefind: false,
    components: { Search: "./src/components/Search.astro" },
    sidebar: [{ label: "Sidebarlabelword", items: [
      { label: "Getting Started", link: "/guide/getting-started/" },
      { label: "Deploying", link: "/guide/deployment/" },
      { label: "はじめに", link: "/ja/guide/getting-started/" },
      { label: "Navlinkword", link: "/" }] }],
  })],
});
`;
      files["src/components/Search.astro"] = `<midashi-search index="/search/"></midashi-search>
<script is:inline type="module" src="/search/midashi.js"></script>
`;
      files["package.json"] = JSON.stringify({ name: "orbit-starlight", private: true, type: "module" });
      return files;
    },
    build(dir, site) {
      run("node", [join(dir, "node_modules", "astro", "astro.js"), "build", "--root", site], { cwd: dir });
      return join(site, "dist");
    },
  },
  {
    name: "docusaurus",
    packages: ["@docusaurus/core@3.10.2", "@docusaurus/preset-classic@3.10.2", "react@19.3.1", "react-dom@19.3.1"],
    home: "/",
    file: identity,
    files(pages) {
      const files = {};
      for (const [path, md] of Object.entries(pages)) {
        // Docusaurus: a page's own <head> from MDX; the home page is the docs' root (`slug: /`).
        const front = path === "index.md" ? "---\nslug: /\n---\n\n" : "";
        const head = path === "internal/secret.md" ? '<head>\n  <meta name="robots" content="noindex" />\n</head>\n\n' : "";
        files[`docs/${path}`] = front + head + md;
      }
      files["docusaurus.config.js"] = `export default {
  title: "Orbit",
  url: "http://127.0.0.1",
  baseUrl: "/",
  onBrokenLinks: "warn",
  scripts: [{ src: "/search/midashi.js", type: "module" }],
  presets: [["classic", { docs: { routeBasePath: "/", sidebarPath: "./sidebars.js" }, blog: false, pages: false }]],
  themeConfig: {
    navbar: { title: "Orbit", items: [{ type: "doc", docId: "guide/getting-started", label: "Navlinkword" }, { type: "search", position: "right" }] },
    footer: { copyright: "Footerwordzz" },
  },
};
`;
      files["sidebars.js"] = `export default { docs: [{ type: "category", label: "Sidebarlabelword", items: ["index", "guide/getting-started", "guide/deployment", "ja/guide/getting-started"] }] };
`;
      // The search box in the navbar: the theme's SearchBar, swizzled (ejected) as a file.
      files["src/theme/SearchBar.js"] = `import React from "react";
export default function SearchBar() {
  return <midashi-search index="/search/"></midashi-search>;
}
`;
      files["package.json"] = JSON.stringify({ name: "orbit-docusaurus", private: true });
      return files;
    },
    build(dir, site) {
      run("node", [join(dir, "node_modules", "@docusaurus", "core", "bin", "docusaurus.mjs"), "build", site, "--out-dir", join(site, "build")], {
        cwd: site,
        env: { NODE_PATH: join(dir, "node_modules") },
      });
      return join(site, "build");
    },
  },
];

/**
 * The bundlers scenario's packages (bundlers.test.mjs), declared beside the generators' so
 * that prefetch.mjs installs every scenario's packages from one list.
 */
export const BUNDLERS = { name: "bundlers", packages: ["vite@8.3.8", "webpack@5.112.2", "webpack-cli@6.0.1", "esbuild@0.28.2"] };
