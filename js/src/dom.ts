// Building DOM from untrusted strings: text nodes only. Attributes are set one by one (never
// ``on*``), and nothing here parses HTML.

type Child = Node | string | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined>;

export function h(tag: string, attrs: Attrs | null = null, ...children: (Child | Child[])[]): HTMLElement {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [name, value] of Object.entries(attrs)) {
      if (value === null || value === undefined || value === false) continue;
      if (/^on/i.test(name)) throw new Error(`event attribute ${name} is not allowed`);
      if (name === "class") el.className = String(value);
      else el.setAttribute(name, value === true ? "" : String(value));
    }
  }
  append(el, ...children);
  return el;
}

export function append(el: Node, ...children: (Child | Child[])[]): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  }
}

export function clear(el: Node): void {
  while (el.firstChild) el.removeChild(el.firstChild);
}

export function button(
  label: string,
  ariaLabel: string,
  onClick: (event: MouseEvent) => void,
  cls = "dsh-btn",
): HTMLButtonElement {
  const el = h("button", { type: "button", class: cls, "aria-label": ariaLabel }, label) as HTMLButtonElement;
  el.addEventListener("click", (event) => {
    event.preventDefault();
    event.stopPropagation();
    onClick(event);
  });
  return el;
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

export function formatTokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(1).replace(/\.0$/, "")}k`;
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, "")}M`;
}

export function formatElapsed(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, "0")} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, "0")} min`;
}

/** Keyboard input inside ``el`` never reaches notebook shortcuts (JupyterLab, Notebook 7). */
export function containKeys(el: HTMLElement): void {
  el.setAttribute("data-lm-suppress-shortcuts", "true");
  for (const type of ["keydown", "keypress", "keyup"]) {
    el.addEventListener(type, (event) => event.stopPropagation());
  }
}
