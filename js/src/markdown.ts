// Sanitized markdown that grows live. Blocks that are complete are rendered once and kept; each
// update re-parses only the text from the start of the last block (the one still being written).
// A paragraph that only grows by plain words (after a space; no markdown or link characters, no
// newline) is extended in place instead: its new words are appended to its last text node, so a
// long paragraph is not rebuilt, restyled and laid out anew for every few words.
// Code blocks are highlighted, and get a Copy button (Python ones also Insert below, see insert.ts),
// once their closing fence has arrived.
import MarkdownIt from "markdown-it";
import { button, h } from "./dom";
import { highlight } from "./highlight";
import { extensionPresent, insertButton, insertable, WANTS_INSERT } from "./insert";
import { htmlToFragment, isSafeUrl } from "./sanitize";

type Token = ReturnType<typeof md.parse>[number];

export const md = new MarkdownIt({ html: false, linkify: true, typographer: false, breaks: false });
md.validateLink = (url: string) => isSafeUrl(url);
md.disable(["image"]); // no remote images: they would load (and leak) without a click

/** Split top-level tokens into blocks, each with its source line span. */
function splitBlocks(tokens: Token[]): { tokens: Token[]; start: number }[] {
  const blocks: { tokens: Token[]; start: number }[] = [];
  let current: Token[] = [];
  let depth = 0;
  let start = 0;
  for (const token of tokens) {
    if (depth === 0) {
      current = [];
      start = token.map ? token.map[0] : start;
    }
    current.push(token);
    depth += token.nesting;
    if (depth === 0) blocks.push({ tokens: current, start });
  }
  if (depth !== 0 && current.length) blocks.push({ tokens: current, start });
  return blocks;
}

function lineOffset(text: string, line: number): number {
  let offset = 0;
  for (let i = 0; i < line; i++) {
    const next = text.indexOf("\n", offset);
    if (next < 0) return text.length;
    offset = next + 1;
  }
  return offset;
}

/** Is this (last) block a fence whose closing marker has arrived? */
function fenceClosed(block: Token[], source: string, start: number): boolean {
  const fence = block.find((t) => t.type === "fence");
  if (!fence || !fence.map) return true;
  const lines = source.slice(lineOffset(source, start)).split("\n").slice(0, fence.map[1] - fence.map[0]);
  if (lines.length < 2) return false;
  const closing = lines[lines.length - 1].trim();
  const marker = fence.markup[0];
  return closing.length >= fence.markup.length && closing === marker.repeat(closing.length);
}

/** Wrap code blocks with a language bar; a ``complete`` block (its closing fence has arrived) is
 * highlighted and gets Copy: copying a block still being written would copy half of it. */
function decorateCode(fragment: DocumentFragment, complete: boolean): void {
  for (const pre of [...fragment.querySelectorAll("pre")]) {
    const code = pre.querySelector("code");
    const text = (code ?? pre).textContent ?? "";
    const lang = /language-([\w+#.-]+)/.exec(code?.className ?? "")?.[1] ?? "";
    if (complete && code && lang) {
      const html = highlight(text, lang);
      if (html !== null) {
        code.textContent = "";
        code.appendChild(htmlToFragment(html));
        code.classList.add("hljs");
      }
    }
    const copy = complete ? copyButton(text, lang) : null;
    // Insert below: complete Python blocks, only where the page extension can insert the cell
    const python = complete && insertable(lang);
    const insert = python && extensionPresent() ? insertButton(text) : null;
    const wrapper = h("div", { class: "dsh-code", [WANTS_INSERT]: python && !insert },
      h("div", { class: "dsh-code-bar" }, h("span", { class: "dsh-code-lang" }, lang), h("span", { class: "dsh-code-actions" }, insert, copy)));
    pre.parentNode?.insertBefore(wrapper, pre);
    wrapper.appendChild(pre);
  }
}

function copyButton(text: string, lang: string): HTMLButtonElement {
  const copy = button("Copy", `Copy code${lang ? ` (${lang})` : ""}`, () => copyText(text, copy), "dsh-btn dsh-copy");
  return copy;
}

export function copyText(text: string, source?: HTMLElement): void {
  const done = () => {
    if (!source) return;
    source.textContent = "Copied";
    setTimeout(() => (source.textContent = "Copy"), 1500);
  };
  const clip = (globalThis.navigator as Navigator | undefined)?.clipboard;
  if (clip?.writeText) {
    clip.writeText(text).then(done, () => fallbackCopy(text) && done());
  } else if (fallbackCopy(text)) done();
}

function fallbackCopy(text: string): boolean {
  const area = document.createElement("textarea");
  area.value = text;
  area.setAttribute("readonly", "");
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.appendChild(area);
  area.select();
  let ok = false;
  try {
    ok = typeof document.execCommand === "function" && document.execCommand("copy");
  } catch {
    ok = false;
  }
  area.remove();
  return ok;
}

function renderTokens(tokens: Token[], complete: boolean): DocumentFragment {
  const html = md.renderer.render(tokens, md.options, {});
  const fragment = htmlToFragment(html);
  decorateCode(fragment, complete);
  return fragment;
}

/** Render a whole markdown text (sanitized) into a fragment. */
export function renderMarkdown(text: string): DocumentFragment {
  return renderTokens(md.parse(text, {}), true);
}

/** Text that, appended to a paragraph after a space, renders as itself: letters, digits, spaces
 * and punctuation that is neither markdown (`*_[]()<>!#|\\&~=+-` and backticks) nor part of a
 * link (`:/@`, and a period inside a word: linkify), and no newline (a new block, a table, a hard
 * break). A period that ends a word (before a space or at the end) is plain: no link ends so, and
 * the next words are appended only after a space. */
const PLAIN = /^[\p{L}\p{N} \t,;?'"%]+$/u;
const WORD_END_PERIODS = /\.+(?=[ \t]|$)/g;

/**
 * Characters of a paragraph grown in place after which it goes on in a new block-level run
 * (``span.dsh-md-run``): a frame then lays out the run being written, not the whole paragraph
 * (a 110 KB paragraph took ~45 ms of layout a frame). It shows as an early line wrap every few
 * thousand characters of one paragraph, nothing else; ordinary paragraphs never reach it.
 */
const RUN_CHARS = 4096;

/** Whether ``added`` (no newline) renders as itself when appended after a space. */
function isPlain(added: string): boolean {
  return PLAIN.test(added.replace(WORD_END_PERIODS, ""));
}

/** The text node words are appended to: the paragraph's last one, or its last run's. */
function lastText(p: Element): Text | null {
  let last = p.lastChild;
  if (last instanceof HTMLElement && last.classList.contains("dsh-md-run")) last = last.lastChild;
  return last?.nodeType === Node.TEXT_NODE ? (last as Text) : null;
}

/** A paragraph grown in place into runs that reads as ``wanted``: a paragraph of that text only. */
function sameRuns(shown: Node, wanted: Node | undefined): boolean {
  if (!(shown instanceof HTMLElement) || shown.tagName !== "P" || !(wanted instanceof HTMLElement)) return false;
  if (wanted.tagName !== "P" || wanted.attributes.length !== 0 || shown.attributes.length !== 0) return false;
  // (a browser's HTML parser cuts a text of over 65,536 characters into several text nodes)
  if (![...wanted.childNodes].every((n) => n.nodeType === Node.TEXT_NODE)) return false;
  const parts = [...shown.childNodes];
  const runs = parts.every(
    (n, i) =>
      (i === 0 && n.nodeType === Node.TEXT_NODE) ||
      (n instanceof HTMLElement && n.classList.contains("dsh-md-run") && n.childNodes.length === 1 &&
        n.firstChild?.nodeType === Node.TEXT_NODE),
  );
  return runs && shown.textContent === wanted.textContent;
}

/** A live markdown view: ``update(text, streaming)`` as the text grows. */
export class MarkdownView {
  readonly el: HTMLElement;
  private stableEl: HTMLElement;
  private tailEl: HTMLElement;
  private stableSource = "";
  private text = "";
  private streaming: boolean | null = null;
  /** Characters re-parsed by the last update (tests and the benchmark look at it). */
  lastParsed = 0;
  /** The source of the tail as rendered, while the tail is one paragraph; else null. */
  private tailSource: string | null = null;

  constructor(cls = "dsh-md") {
    this.stableEl = h("div", { class: "dsh-md-stable" });
    this.tailEl = h("div", { class: "dsh-md-tail" });
    this.el = h("div", { class: cls }, this.stableEl, this.tailEl);
  }

  update(text: string, streaming: boolean): void {
    if (text === this.text && streaming === this.streaming) return;
    this.text = text;
    this.streaming = streaming;
    this.el.classList.toggle("dsh-streaming", streaming);
    if (!streaming) {
      // final: one full render, which also settles what live rendering could not know; when the
      // live view already shows exactly that (node for node), it is kept and not laid out again.
      // The final text often brings the last words too (they and the end of the stream came in
      // one update): the tail paragraph takes them in place first, as a live update would.
      if (text.startsWith(this.stableSource)) this.appendPlain(text.slice(this.stableSource.length));
      if (this.stableSource === "" && this.tailSource === text) {
        // one paragraph: rendered from a full parse, then grown by words that render as
        // themselves; a full render would read the same, so it is not even parsed again
        this.keepTail();
        this.tailSource = null;
        this.lastParsed = 0;
        return;
      }
      const fragment = renderMarkdown(text);
      this.lastParsed = text.length;
      if (!this.showsAlready(fragment)) {
        this.reset();
        this.stableEl.appendChild(fragment);
      }
      this.stableSource = text;
      this.tailSource = null;
      return;
    }
    if (!text.startsWith(this.stableSource)) this.reset();
    const tail = text.slice(this.stableSource.length);
    if (this.appendPlain(tail)) return;
    this.lastParsed = tail.length;
    const blocks = splitBlocks(md.parse(tail, {}));
    if (blocks.length > 1) {
      const last = blocks[blocks.length - 1];
      for (const block of blocks.slice(0, -1)) this.stableEl.appendChild(renderTokens(block.tokens, true));
      this.stableSource += tail.slice(0, lineOffset(tail, last.start));
      const rest = text.slice(this.stableSource.length);
      this.renderTail(last.tokens, rest, 0);
    } else if (blocks.length === 1) {
      this.renderTail(blocks[0].tokens, tail, blocks[0].start);
    } else {
      this.tailEl.textContent = "";
    }
  }

  private renderTail(tokens: Token[], source: string, start: number): void {
    const fragment = renderTokens(tokens, fenceClosed(tokens, source, start));
    this.tailEl.textContent = "";
    this.tailEl.appendChild(fragment);
    const only = tokens.length === 3 && tokens[0].type === "paragraph_open" && tokens[2].type === "paragraph_close";
    this.tailSource = only && this.tailEl.childElementCount === 1 ? source : null;
  }

  /** Extend the tail paragraph in place when ``tail`` is it plus plain words; false otherwise. */
  private appendPlain(tail: string): boolean {
    const before = this.tailSource;
    if (before === null || tail.length <= before.length || !tail.startsWith(before)) return false;
    const added = tail.slice(before.length);
    // a space between (so no link or emphasis of the text before can change, and no line end:
    // after a newline the next words may start a new block), then words
    if (/\n[ \t]*$/.test(before)) return false;
    if (!/[ \t]$/.test(before) && !/^[ \t]/.test(added)) return false;
    if (!isPlain(added)) return false;
    const p = this.tailEl.firstElementChild;
    if (!p || p.tagName !== "P") return false;
    const rendered = lastText(p);
    // the render trimmed the paragraph's trailing space: put one back between the words
    const spaced = rendered !== null && /\s$/.test(rendered.data);
    const gap = /\s$/.test(before) && !spaced && !/^\s/.test(added) ? " " : "";
    // without its trailing spaces, as a render trims them: the paragraph then reads as a full
    // render of the same text (see ``update``'s final render)
    const piece = (gap + added).replace(/[ \t]+$/, "");
    if (rendered !== null && rendered.length >= RUN_CHARS) {
      p.appendChild(h("span", { class: "dsh-md-run" }, piece));
    } else if (rendered !== null) rendered.appendData(piece);
    else p.appendChild(document.createTextNode(piece));
    this.tailSource = tail;
    this.lastParsed = 0;
    return true;
  }

  /** True when the view shows ``fragment`` already; then everything is moved into the stable
   * part without rebuilding it (the tail's element is renamed when it holds it all). */
  private showsAlready(fragment: DocumentFragment): boolean {
    const shown = [...this.stableEl.childNodes, ...this.tailEl.childNodes];
    const wanted = [...fragment.childNodes];
    if (shown.length === 0 || shown.length !== wanted.length) return false;
    if (!shown.every((node, i) => node.isEqualNode(wanted[i]) || sameRuns(node, wanted[i]))) return false;
    this.keepTail();
    return true;
  }

  /** Make what the tail shows part of the stable part, without rebuilding it. */
  private keepTail(): void {
    if (this.stableEl.childNodes.length === 0) {
      // everything is in the tail (one paragraph grown in place): swap the two parts' roles
      const empty = this.stableEl;
      this.stableEl = this.tailEl;
      this.tailEl = empty;
      this.stableEl.className = "dsh-md-stable";
      this.tailEl.className = "dsh-md-tail";
      this.el.appendChild(this.tailEl);
    } else {
      this.stableEl.append(...this.tailEl.childNodes);
    }
    this.stableSource = this.text;
  }

  private reset(): void {
    this.stableEl.textContent = "";
    this.tailEl.textContent = "";
    this.stableSource = "";
    this.tailSource = null;
  }
}
