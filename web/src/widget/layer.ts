// Where the search dialog is shown, and how a phone's back gesture closes it.
//
// The dialog lives in the element's shadow root while the element is rendered. A search box
// inside a collapsed mobile menu (an ancestor with `display: none`) is not: its fixed backdrop
// is then a 0×0 box that Ctrl+K "opens", that Esc cannot reach, and that shows up blank over
// the page once the menu opens. So the dialog moves, when it opens, into a layer of its own on
// <body>: the same stylesheet, the element's `theme` and its `--midashi-*` custom properties
// (which no longer inherit there), and back into the element when the element is rendered.

/** Whether the primary pointer is a finger: no keyboard hints, and the back gesture closes. */
export function isTouch(): boolean {
  return globalThis.matchMedia?.("(hover: none) and (pointer: coarse)").matches ?? false;
}

export class Layer {
  private host?: HTMLElement;
  private hostRoot?: ShadowRoot;
  /** Whether opening pushed a history entry that the back gesture pops. */
  private pushed = false;
  private readonly onPop = () => {
    if (!this.pushed) return;
    this.pushed = false;
    removeEventListener("popstate", this.onPop);
    this.onBack();
  };

  /**
   * `owner` is the element, `root` its shadow root, `backdrop` what is moved, `css` the
   * stylesheet, `onBack` what the back gesture does (close).
   */
  constructor(
    private readonly owner: HTMLElement,
    private readonly root: ShadowRoot,
    private readonly backdrop: HTMLElement,
    private readonly css: string,
    private readonly onBack: () => void,
  ) {}

  /** Puts the backdrop where it can be seen: in the element if it is rendered, else the layer. */
  place(): void {
    if (this.owner.getClientRects().length > 0) {
      if (this.backdrop.parentNode !== this.root) this.root.append(this.backdrop);
      return;
    }
    if (!this.host || !this.host.isConnected) {
      this.host = document.createElement("div");
      this.host.setAttribute("data-midashi-layer", "");
      this.hostRoot = this.host.attachShadow({ mode: "open" });
      const style = document.createElement("style");
      style.textContent = this.css;
      this.hostRoot.append(style);
      document.body.append(this.host);
    }
    const theme = this.owner.getAttribute("theme");
    if (theme) this.host.setAttribute("theme", theme);
    else this.host.removeAttribute("theme");
    this.host.setAttribute("lang", this.owner.getAttribute("lang") ?? document.documentElement.lang ?? "");
    const computed = getComputedStyle(this.owner);
    for (const name of new Set(this.css.match(/--midashi-[a-z0-9-]+/g))) {
      const value = computed.getPropertyValue(name);
      if (value) this.host.style.setProperty(name, value);
      else this.host.style.removeProperty(name);
    }
    this.hostRoot?.append(this.backdrop);
  }

  /** The focused element of wherever the dialog is. */
  get activeElement(): Element | null {
    const root = this.backdrop.getRootNode();
    return root instanceof ShadowRoot || root instanceof Document ? root.activeElement : null;
  }

  /** The dialog opened: on a touch device, the back gesture will close it. */
  opened(): void {
    if (this.pushed || !isTouch()) return;
    history.pushState(history.state, "");
    this.pushed = true;
    addEventListener("popstate", this.onPop);
  }

  /**
   * The dialog closed by other means: the entry opening pushed is taken back, unless a result
   * is being opened (going back then would race the navigation).
   */
  closed(navigating: boolean): void {
    if (!this.pushed) return;
    this.pushed = false;
    removeEventListener("popstate", this.onPop);
    if (!navigating) history.back();
  }

  /** Removes the layer (the element left the page). */
  remove(): void {
    this.closed(true);
    this.host?.remove();
    this.host = undefined;
  }
}
