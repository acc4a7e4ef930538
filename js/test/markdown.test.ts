import { describe, expect, it } from "vitest";
import { MarkdownView, renderMarkdown } from "../src/markdown";

const ANSWER = [
  "# Monthly revenue\n\n",
  "Revenue fell in **EMEA** in March.\n\n",
  "- north: +3%\n- south: -2%\n\n",
  "```python\nimport pandas as pd\ndf = pd.read_csv('sales.csv')\n```\n\n",
  "| region | delta |\n|---|---:|\n| EMEA | -7% |\n\n",
  "> note: one month is missing\n\n",
  "Done.",
].join("");

function full(text: string): string {
  const div = document.createElement("div");
  div.appendChild(renderMarkdown(text));
  return div.innerHTML;
}

/** A view whose one paragraph grew word by word (``w0 w1 …``), each word appended in place. */
function growWords(count: number): { view: MarkdownView; text: string } {
  const view = new MarkdownView();
  let text = "w0 ";
  view.update(text, true);
  for (let i = 1; i < count; i++) {
    text += `w${i} `;
    view.update(text, true);
    expect(view.lastParsed).toBe(0);
  }
  return { view, text };
}

describe("live markdown", () => {
  it("ends exactly like a full render, however the text was chunked", () => {
    for (const size of [1, 3, 17, 1000]) {
      const view = new MarkdownView();
      for (let i = size; i < ANSWER.length + size; i += size) view.update(ANSWER.slice(0, i), true);
      view.update(ANSWER, false);
      expect(view.el.querySelector(".dsh-md-stable")!.innerHTML).toBe(full(ANSWER));
      expect(view.el.querySelector(".dsh-md-tail")!.innerHTML).toBe("");
    }
  });

  it("while streaming, shows the same text as a full render would", () => {
    const view = new MarkdownView();
    for (let i = 7; i < ANSWER.length; i += 7) {
      view.update(ANSWER.slice(0, i), true);
      const expected = document.createElement("div");
      expected.appendChild(renderMarkdown(ANSWER.slice(0, i)));
      expect(view.el.textContent!.replace(/Copy/g, "").replace(/\s+/g, "")).toBe(
        expected.textContent!.replace(/Copy/g, "").replace(/\s+/g, ""),
      );
    }
  });

  it("re-parses only the block still being written", () => {
    const view = new MarkdownView();
    const paragraphs = Array.from({ length: 200 }, (_, i) => `Paragraph ${i} with some words in it.\n\n`).join("");
    view.update(paragraphs, true);
    view.update(paragraphs + "The last one grows", true);
    expect(view.lastParsed).toBeLessThan(100);
    view.update(paragraphs + "The last one grows longer", true);
    expect(view.lastParsed).toBeLessThan(100);
    expect(view.el.querySelectorAll(".dsh-md-stable p")).toHaveLength(200);
  });

  it("highlights a code block once it is closed", () => {
    const view = new MarkdownView();
    view.update("Code:\n\n```python\nimport os\nprint(os.getcwd())\n", true);
    const open = view.el.querySelector("pre code")!;
    expect(open.querySelector("span")).toBeNull();
    expect(open.textContent).toContain("import os");
    view.update("Code:\n\n```python\nimport os\nprint(os.getcwd())\n```", true);
    expect(view.el.querySelector("pre code span.hljs-keyword")!.textContent).toBe("import");
    expect(view.el.querySelectorAll(".dsh-copy")).toHaveLength(1);
  });

  it("starts over when the text is replaced rather than grown", () => {
    const view = new MarkdownView();
    view.update("first paragraph\n\nsecond", true);
    view.update("something else entirely", true);
    expect(view.el.textContent!.trim()).toBe("something else entirely");
  });
});

describe("a long paragraph that grows by words", () => {
  it("is extended in place, not rebuilt, and reads like a full render", () => {
    const view = new MarkdownView();
    let text = "Start of a long answer";
    view.update(text, true);
    const paragraph = view.el.querySelector(".dsh-md-tail p")!;
    for (let i = 0; i < 300; i++) {
      text += ` w${i}`;
      view.update(text, true);
      expect(view.lastParsed).toBe(0); // appended, nothing re-parsed
    }
    text += " ";
    view.update(text, true);
    for (let i = 300; i < 310; i++) {
      text += `w${i} `; // words that end with the space instead
      expect(view.lastParsed).toBe(0);
      view.update(text, true);
    }
    expect(view.el.querySelector(".dsh-md-tail p")).toBe(paragraph); // the same element
    const expected = document.createElement("div");
    expected.appendChild(renderMarkdown(text));
    expect(view.el.textContent!.replace(/\s+/g, " ").trim()).toBe(expected.textContent!.replace(/\s+/g, " ").trim());
    view.update(text, false); // settled: one full render
    expect(view.el.querySelector(".dsh-md-stable")!.innerHTML).toBe(full(text));
  });

  it("takes the slow path where words could change what came before or start a block", () => {
    for (const [before, added] of [
      ["see example", ".com"], // a link
      ["see example.co", "m"], // no space: the link would change
      ["a *b", "* c"], // emphasis
      ["line one\n", "- item"], // a list after a line end
      ["para\n\n", "next"], // a new paragraph
      ["text ", "`code`"],
      ["text ", "[a](b)"],
      ["see ", "example.com now"], // a period inside a word: linkify
      ["mail ", "ann@example.org"],
    ]) {
      const view = new MarkdownView();
      view.update(before, true);
      view.update(before + added, true);
      expect(view.lastParsed, `${before} + ${added}`).toBeGreaterThan(0);
      const expected = document.createElement("div");
      expected.appendChild(renderMarkdown(before + added));
      expect(view.el.querySelector(".dsh-md-tail")!.innerHTML || view.el.textContent).toBeTruthy();
      expect(view.el.textContent!.replace(/\s+/g, "")).toBe(expected.textContent!.replace(/\s+/g, ""));
    }
  });

  it("appends a period that ends a sentence in place", () => {
    const view = new MarkdownView();
    let text = "Revenue fell";
    view.update(text, true);
    for (const added of [" in March.", " It rose again.", " Why?", " Twice... then"]) {
      text += added;
      view.update(text, true);
      expect(view.lastParsed, added).toBe(0);
    }
    view.update(text, false);
    expect(view.el.querySelector(".dsh-md-stable")!.innerHTML).toBe(full(text));
  });

  it("keeps the paragraph it grew at the final render when that render would be the same", () => {
    const { view, text } = growWords(50);
    const paragraph = view.el.querySelector("p")!;
    view.update(text, false);
    expect(view.lastParsed).toBe(0); // not even parsed again
    expect(view.el.querySelector("p")).toBe(paragraph); // not rebuilt
    expect(view.el.querySelector(".dsh-md-stable")!.innerHTML).toBe(full(text));
    expect(view.el.querySelector(".dsh-md-tail")!.innerHTML).toBe("");
    expect([...view.el.children].map((c) => c.className)).toEqual(["dsh-md-stable", "dsh-md-tail"]);
  });

  it("keeps the paragraph when the final text also brings its last words", () => {
    const { view, text } = growWords(3000);
    const paragraph = view.el.querySelector("p")!;
    let final = text;
    for (let i = 3000; i < 5000; i++) final += `w${i} `;
    final = final.trimEnd();
    view.update(final, false);
    expect(view.lastParsed).toBe(0); // neither parsed nor rebuilt: grown in place, then kept
    expect(view.el.querySelector("p")).toBe(paragraph);
    const expected = document.createElement("div");
    expected.appendChild(renderMarkdown(final));
    expect(view.el.textContent).toBe(expected.textContent);
    expect(view.el.querySelector(".dsh-md-tail")!.innerHTML).toBe("");
  });

  it("keeps a multi-block answer whose last paragraph grew in the final update", () => {
    const view = new MarkdownView();
    let text = "# Title\n\nFirst paragraph.\n\nw0 ";
    view.update(text, true);
    for (let i = 1; i < 50; i++) view.update((text += `w${i} `), true);
    const last = [...view.el.querySelectorAll("p")].pop()!;
    const final = `${text}w50 w51 w52`;
    view.update(final, false);
    expect([...view.el.querySelectorAll("p")].pop()).toBe(last); // compared, found the same, kept
    expect(view.el.querySelector(".dsh-md-stable")!.innerHTML).toBe(full(final));
  });

  it("renders again at the end what the live view could not know", () => {
    const view = new MarkdownView();
    const text = "See [the data][d] for details.\n\n[d]: https://example.org/data";
    for (let i = 5; i <= text.length; i += 5) view.update(text.slice(0, i), true);
    view.update(text, true);
    const live = view.el.querySelector("p")!;
    view.update(text, false);
    expect(view.el.querySelector("a")?.getAttribute("href")).toBe("https://example.org/data");
    expect(view.el.querySelector("p")).not.toBe(live);
    expect(view.el.querySelector(".dsh-md-stable")!.innerHTML).toBe(full(text));
  });

  it("goes on in block runs past a few thousand characters, and keeps them at the final render", () => {
    const { view, text } = growWords(3000);
    const paragraph = view.el.querySelector("p")!;
    const runs = paragraph.querySelectorAll(".dsh-md-run");
    expect(runs.length).toBeGreaterThanOrEqual(4); // ~17 KB in runs of ~4 KB
    for (const run of runs) expect(run.textContent!.length).toBeLessThan(4096 + 40);
    const expected = document.createElement("div");
    expected.appendChild(renderMarkdown(text));
    expect(paragraph.textContent).toBe(expected.querySelector("p")!.textContent);
    view.update(text, false);
    expect(view.el.querySelector("p")).toBe(paragraph); // the same text: not laid out again
    expect(view.el.querySelector(".dsh-md-tail")!.innerHTML).toBe("");
    expect(view.el.textContent).toBe(expected.textContent);
  });
});

