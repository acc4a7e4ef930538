// What a call of one of the runtime's file tools says, in words: one description per tool.
// Mirrors dsh_notebook/transcript/tool_cards.py (the static transcript), so the live card and the
// saved transcript agree: write → the file as code in its language; edit → a diff; read → path and
// range; glob/grep → pattern and matches; each result summarized in words. Any other tool,
// unexpected arguments or a failed call: null (the generic card). The raw arguments and result
// stay in the snapshot (Arguments button, exports).
import { planWords } from "../plan";
import type { Todo, ToolItem } from "../types";

export interface ToolView {
  heading: string;
  code: string | null;
  language: string;
  outcome: string | null;
  detail: string | null;
}

const LANGUAGES: Record<string, string> = {
  ".py": "python", ".ipynb": "json", ".js": "javascript", ".mjs": "javascript", ".ts": "typescript",
  ".json": "json", ".md": "markdown", ".sh": "bash", ".bash": "bash", ".html": "html", ".css": "css",
  ".yml": "yaml", ".yaml": "yaml", ".toml": "toml", ".sql": "sql", ".r": "r", ".rs": "rust",
  ".go": "go", ".java": "java", ".c": "c", ".h": "c", ".cpp": "cpp", ".csv": "text", ".txt": "text",
};
const WRAPPED = /^<path>([\s\S]*?)<\/path>\s*<type>(\w+)<\/type>\s*<content>\n?([\s\S]*?)\n?<\/content>\s*$/;
const NUMBERED = /^\s*(\d+): ?/gm;
const MATCHES = /^Found (\d+) match(?:es)?\b/;

export function languageOf(path: string): string {
  const name = path.toLowerCase().split("/").pop() ?? "";
  const dot = name.lastIndexOf(".");
  return dot > 0 ? LANGUAGES[name.slice(dot)] ?? "text" : "text";
}

function lines(text: string): number {
  if (!text) return 0;
  return text.split("\n").length - 1 + (text.endsWith("\n") ? 0 : 1);
}

function plural(n: number, word: string): string {
  return `${n.toLocaleString("en-US")} ${word}${n === 1 ? "" : word.endsWith("ch") ? "es" : "s"}`;
}

function base(path: string): string {
  return path.split("/").pop() || path;
}

function unwrap(result: string): [string | null, string] {
  const m = WRAPPED.exec(result);
  return m ? [m[2], m[3]] : [null, result];
}

type Args = Record<string, unknown>;
type Describer = (args: Args, result: string | null) => ToolView | null;

const str = (v: unknown): v is string => typeof v === "string";
const int = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v);
const view = (heading: string, extra: Partial<ToolView> = {}): ToolView =>
  ({ heading, code: null, language: "text", outcome: null, detail: null, ...extra });

function pathOf(args: Args): string | null {
  return str(args.file_path) && args.file_path.trim() ? args.file_path : null;
}

const write: Describer = (args, result) => {
  const path = pathOf(args);
  if (path === null || !str(args.content)) return null;
  let outcome: string | null = null;
  if (result !== null) {
    const said = unwrap(result)[1];
    const verb = said.trim().toLowerCase().startsWith("created") ? "created" : "wrote";
    outcome = `${verb} ${base(path)}, ${plural(lines(args.content), "line")}`;
  }
  return view(`write ${path}`, { code: args.content, language: languageOf(path), outcome });
};

const edit: Describer = (args, result) => {
  const path = pathOf(args);
  const old = args.old_string, fresh = args.new_string;
  if (path === null || !str(old) || !str(fresh)) return null;
  const side = (text: string, mark: string) => (text ? text.replace(/\n$/, "").split("\n").map((l) => mark + l) : []);
  const diff = [...side(old, "-"), ...side(fresh, "+")].join("\n");
  const every = args.replace_all === true ? " (every match)" : "";
  const outcome = result === null ? null
    : `edited ${base(path)}${every}: ${plural(lines(old), "line")} replaced by ${plural(lines(fresh), "line")}`;
  return view(`edit ${path}`, { code: diff, language: "diff", outcome });
};

const read: Describer = (args, result) => {
  const path = pathOf(args);
  if (path === null) return null;
  const { offset, limit } = args;
  let where = "";
  if (int(offset) && int(limit) && limit > 0) where = `, lines ${offset} to ${offset + limit - 1}`;
  else if (int(offset)) where = `, from line ${offset}`;
  else if (int(limit)) where = `, first ${plural(limit, "line")}`;
  if (result === null) return view(`read ${path}${where}`);
  const [kind, content] = unwrap(result);
  const count = kind === "file" ? (content.match(NUMBERED) ?? []).length : lines(content);
  return view(`read ${path}${where}`, { outcome: `read ${base(path)}: ${plural(count, "line")}`, detail: content });
};

const glob: Describer = (args, result) => {
  if (!str(args.pattern)) return null;
  const heading = `glob ${args.pattern}${str(args.path) && args.path ? ` in ${args.path}` : ""}`;
  if (result === null) return view(heading);
  const paths = result.split("\n").filter((l) => l.trim());
  const none = !paths.length || result.trim().toLowerCase().startsWith("no files");
  return view(heading, { outcome: none ? "no files found" : `${plural(paths.length, "file")} found`, detail: result });
};

const grep: Describer = (args, result) => {
  if (!str(args.pattern)) return null;
  let heading = `grep “${args.pattern}”`;
  if (str(args.include) && args.include) heading += ` in ${args.include}`;
  if (str(args.path) && args.path) heading += ` under ${args.path}`;
  if (result === null) return view(heading);
  const found = MATCHES.exec(result);
  if (found) {
    return view(heading, { outcome: plural(Number(found[1]), "match"), detail: result.slice(found[0].length).replace(/^\n+|\n+$/g, "") });
  }
  return view(heading, { outcome: result.trim().toLowerCase().startsWith("no ") ? "no matches" : null, detail: result });
};

// One line: the plan itself is shown once, pinned (plan.ts), not per call (tool_cards._todo_write).
const todoWrite: Describer = (args) => {
  if (!Array.isArray(args.todos)) return null;
  const statuses = ["pending", "in_progress", "completed"];
  const todos: Todo[] = args.todos
    .filter((t): t is Record<string, unknown> => !!t && typeof t === "object" && str((t as Args).content) && !!String((t as Args).content).trim())
    .map((t) => ({ content: String(t.content), status: (statuses.includes(String(t.status)) ? t.status : "pending") as Todo["status"] }));
  const kept = todos.slice(0, 50);
  return view(`update the plan: ${planWords(kept, todos.length - kept.length)}`);
};

const DESCRIBERS = new Map<string, Describer>([
  ["write", write], ["edit", edit], ["read", read], ["glob", glob], ["grep", grep], ["todo_write", todoWrite],
]);

/** The view of a ``write``/``edit``/``read``/``glob``/``grep`` call, else null. */
export function describeTool(node: ToolItem): ToolView | null {
  const args = node.args;
  if (!args || typeof args !== "object" || Array.isArray(args) || node.is_error) return null;
  const describe = DESCRIBERS.get(node.name || "");
  return describe ? describe(args as Args, node.result ?? null) : null;
}
