// The widget's stylesheet (inside its shadow root, so page CSS neither breaks it nor is broken
// by it). Every colour, the font, radius and z-index come from CSS custom properties, which
// inherit through the shadow boundary: a site themes the widget by setting `--midashi-*` on
// the element or any ancestor. Dark colours apply with `theme="dark"`, or with
// `prefers-color-scheme: dark` unless `theme="light"`. The default colours meet WCAG AA
// contrast for their text.

const light = `
  --_bg: var(--midashi-bg, #ffffff);
  --_fg: var(--midashi-fg, #1f2328);
  --_muted: var(--midashi-muted, #57606a);
  --_border: var(--midashi-border, #d0d7de);
  --_accent: var(--midashi-accent, #0550ae);
  --_selected-bg: var(--midashi-selected-bg, #ddf4ff);
  --_selected-fg: var(--midashi-selected-fg, #0a3069);
  --_mark-bg: var(--midashi-mark-bg, #fff8c5);
  --_mark-fg: var(--midashi-mark-fg, #1f2328);
  --_backdrop: var(--midashi-backdrop, rgba(31, 35, 40, 0.45));
  --_button-bg: var(--midashi-button-bg, #f6f8fa);
  --_shadow: var(--midashi-shadow, 0 12px 32px rgba(31, 35, 40, 0.25));
`;

const dark = `
  --_bg: var(--midashi-bg, #161b22);
  --_fg: var(--midashi-fg, #e6edf3);
  --_muted: var(--midashi-muted, #9ea7b3);
  --_border: var(--midashi-border, #30363d);
  --_accent: var(--midashi-accent, #79c0ff);
  --_selected-bg: var(--midashi-selected-bg, #1f3a5f);
  --_selected-fg: var(--midashi-selected-fg, #ffffff);
  --_mark-bg: var(--midashi-mark-bg, #9e6a03);
  --_mark-fg: var(--midashi-mark-fg, #ffffff);
  --_backdrop: var(--midashi-backdrop, rgba(1, 4, 9, 0.7));
  --_button-bg: var(--midashi-button-bg, #21262d);
  --_shadow: var(--midashi-shadow, 0 12px 32px rgba(1, 4, 9, 0.6));
`;

/** The CSS of the shadow root. */
export const css = `
:host {
  ${light}
  display: inline-block;
  font-family: var(--midashi-font, system-ui, -apple-system, "Segoe UI", "Hiragino Sans", "Noto Sans JP", sans-serif);
  font-size: var(--midashi-font-size, 15px);
  color: var(--_fg);
}
@media (prefers-color-scheme: dark) {
  :host(:not([theme="light"])) { ${dark} }
}
:host([theme="dark"]) { ${dark} }
:host([hidden]) { display: none; }
*, *::before, *::after { box-sizing: border-box; }
[hidden] { display: none !important; }
.sr-only {
  position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px;
  overflow: hidden; clip: rect(0, 0, 0, 0); white-space: nowrap; border: 0;
}

.trigger {
  display: inline-flex; align-items: center; gap: 0.5em;
  min-width: 12em; padding: 0.4em 0.6em;
  font: inherit; color: var(--_muted);
  background: var(--_button-bg); border: 1px solid var(--_border);
  border-radius: var(--midashi-radius, 8px); cursor: pointer;
}
.trigger:hover { border-color: var(--_accent); }
.trigger:focus-visible, button:focus-visible, .input:focus-visible {
  outline: 2px solid var(--_accent); outline-offset: 2px;
}
.trigger .label { flex: 1; text-align: start; }
.trigger.pending .label { visibility: hidden; }
kbd {
  font: inherit; font-size: 0.8em; padding: 0.05em 0.4em;
  border: 1px solid var(--_border); border-radius: 4px; color: var(--_muted); background: var(--_bg);
}
svg { width: 1.1em; height: 1.1em; flex: none; }

.backdrop {
  position: fixed; inset: 0; z-index: var(--midashi-z-index, 1000);
  background: var(--_backdrop);
  display: flex; align-items: flex-start; justify-content: center;
  padding: 8vh 1rem 1rem;
}
.dialog {
  width: min(44rem, 100%); max-height: 80vh;
  display: flex; flex-direction: column;
  background: var(--_bg); color: var(--_fg);
  border: 1px solid var(--_border); border-radius: var(--midashi-radius, 8px);
  box-shadow: var(--_shadow); overflow: hidden;
}
.bar {
  display: flex; align-items: center; gap: 0.5em;
  padding: 0.6em 0.8em; border-bottom: 1px solid var(--_border); color: var(--_muted);
}
.input {
  flex: 1; min-width: 0; font: inherit; font-size: 1.1em;
  color: var(--_fg); background: transparent; border: 0; padding: 0.3em 0.2em;
}
.input::placeholder { color: var(--_muted); opacity: 1; }
.input:focus { outline: none; }
.close {
  font: inherit; font-size: 0.8em; color: var(--_muted); background: var(--_button-bg);
  border: 1px solid var(--_border); border-radius: 4px; padding: 0.15em 0.45em; cursor: pointer;
}
.close .cross { display: none; font-size: 1.6em; line-height: 1; }
.status { padding: 0.35em 1em; font-size: 0.85em; color: var(--_muted); min-height: 1.9em; }
.status:empty { display: none; }
.semantic-bar { display: flex; gap: 0.6em; align-items: center; padding: 0 1em 0.35em; font-size: 0.85em; color: var(--_muted); }
.semantic-bar[hidden] { display: none; }
.semantic-action {
  font: inherit; color: var(--_accent, inherit); background: none; border: 1px solid currentColor;
  border-radius: 4px; padding: 0.1em 0.6em; cursor: pointer;
}
.facets { display: flex; flex-direction: column; gap: 0.3em; padding: 0 1em 0.5em; font-size: 0.8em; }
.facets[hidden] { display: none; }
.facet { display: flex; flex-wrap: wrap; gap: 0.35em; align-items: center; }
.facet-name { color: var(--_muted); min-width: 6em; }
.chip {
  font: inherit; color: inherit; background: none; border: 1px solid var(--_border);
  border-radius: 999px; padding: 0.05em 0.65em; cursor: pointer;
}
.chip .count { color: var(--_muted); margin-left: 0.4em; }
.chip[aria-pressed="true"] { border-color: var(--_accent); background: var(--_selected-bg); color: var(--_selected-fg); }
.chip[aria-pressed="true"] .count { color: inherit; }
.chip:focus-visible { outline: 2px solid var(--_accent); outline-offset: 1px; }
.body { overflow-y: auto; overscroll-behavior: contain; padding: 0 0.5em 0.5em; }
.listbox { margin: 0; padding: 0; }
.group { margin: 0.4em 0 0.6em; }
.group-title {
  padding: 0.35em 0.5em; font-size: 0.8em; font-weight: 600; color: var(--_muted);
  text-transform: none; letter-spacing: 0.01em;
}
.group-title .path { font-weight: 400; margin-inline-start: 0.5em; }
.option {
  display: block; padding: 0.5em 0.7em; border-radius: 6px; cursor: pointer;
  border: 1px solid transparent;
}
.option[aria-selected="true"] { background: var(--_selected-bg); color: var(--_selected-fg); border-color: var(--_accent); }
.option[aria-selected="true"] .crumbs, .option[aria-selected="true"] .preview, .option[aria-selected="true"] .versions { color: var(--_selected-fg); }
.crumbs { font-size: 0.78em; color: var(--_muted); overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.heading { font-weight: 600; margin: 0.1em 0; }
.preview {
  font-size: 0.85em; color: var(--_muted); white-space: pre-wrap; overflow-wrap: anywhere;
  display: -webkit-box; -webkit-line-clamp: 2; -webkit-box-orient: vertical; overflow: hidden;
}
.more-results { text-align: center; }
.more-results .heading { font-weight: 500; color: var(--_accent); }
.more-results[aria-selected="true"] .heading { color: var(--_selected-fg); }
.versions { font-size: 0.72em; color: var(--_muted); font-variant-numeric: tabular-nums; }
mark { background: var(--_mark-bg); color: var(--_mark-fg); border-radius: 2px; padding: 0 1px; }
.empty { padding: 1em; color: var(--_fg); }
.suggestions { display: flex; flex-wrap: wrap; gap: 0.4em; align-items: center; margin-top: 0.5em; }
.suggestion, .clear {
  font: inherit; font-size: 0.9em; color: var(--_accent); background: transparent;
  border: 1px solid var(--_border); border-radius: 999px; padding: 0.15em 0.7em; cursor: pointer;
}
.actions { display: flex; justify-content: flex-end; padding: 0.3em 1em; border-top: 1px solid var(--_border); }
.actions[hidden] { display: none; }
.copy-action {
  font: inherit; font-size: 0.8em; color: var(--_accent, inherit); background: none;
  border: 1px solid var(--_border); border-radius: 4px; padding: 0.15em 0.6em; cursor: pointer;
}
.copy-action kbd { font-size: 0.9em; margin-inline-start: 0.5em; color: var(--_muted); }
.recent-actions { display: flex; justify-content: flex-end; padding: 0 0.5em; }
.footer {
  display: flex; gap: 1em; padding: 0.45em 1em; font-size: 0.78em; color: var(--_muted);
  border-top: 1px solid var(--_border);
}
/* A phone: the dialog is a full-screen sheet, and the button an icon that leaves the host
   page's title its room (its name stays for screen readers). */
@media (max-width: 40rem) {
  .backdrop { padding: 0; }
  .dialog { width: 100%; max-height: none; height: 100vh; height: 100dvh; border: 0; border-radius: 0; }
  .footer { display: none; }
  .trigger { min-width: 0; padding: 0.45em; }
  .trigger .label, .trigger kbd {
    position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px;
    overflow: hidden; clip: rect(0, 0, 0, 0); white-space: nowrap; border: 0;
  }
}
/* A touch screen has no keys to hint at: no key caps, and the close button a cross. */
@media (hover: none) and (pointer: coarse) {
  .trigger kbd, .copy-action kbd, .footer, .close .cap { display: none; }
  .close .cross { display: inline; }
  .close { min-width: 2.75rem; min-height: 2.75rem; border: 0; background: none; }
}
@media (prefers-reduced-motion: no-preference) {
  .option { transition: background-color 80ms linear; }
}
`;
