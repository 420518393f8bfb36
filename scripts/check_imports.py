#!/usr/bin/env python3
"""Layering checker for the Rust crates: no import cycle between files, no upward import in the
core and the app.

Usage:
    python3 scripts/check_imports.py              check; exit 1 on a cycle or an upward import
    python3 scripts/check_imports.py --self-test  prove the checker on small built-in crates
    python3 scripts/check_imports.py --edges FILE print what FILE imports (and who imports it)
    python3 scripts/check_imports.py -v           also list the report-only crates' cycles (none now)

What counts as an import of file A by file B (B -> A):
  * `use crate::…`, `use super::…`, `use self::…` and `use child::…` (a module declared in B), with
    groups `{…}`, renames `as` and globs `*`, `pub` or not;
  * a path in an expression or a type that starts with `crate::`, `super::`, `self::`, a child
    module, or a module brought in by a `use` (`use crate::model; … model::Trace`).
  A path is resolved to the file that defines the item: a module path goes to `x.rs` or `x/mod.rs`,
  and a name re-exported by a module (`pub use child::X`, `pub use child::*`, or a plain `use`
  visible to children) is followed to the file that defines X.  A glob import (`use super::*`) is an
  import of the module file itself.  Paths into other crates (std, serde, loupe_core from the CLI)
  are not edges: Cargo keeps crates acyclic.
  * `mod x;` is structure, not an import: a parent does not depend on its children by declaring them.
  Method calls are not followed (`ntff.pending_dma()` does not say which file's `impl` defines the
  method); the type's own file is reached through the path or `use` that names it.

The facade rule: a `pub use child::X` re-export is an import of the child only when the file's own
code also names X (for `pub use child::*`: any item child defines); otherwise it is a facade entry,
not an edge. Whoever names the re-export (`super::X`, `crate::X`, `crate::model::X`) is resolved
through it to the file that defines X, so that file carries the dependency. Hence a parent that
declares and re-exports children never closes a cycle by doing so, even if it also defines items
the children use (`model/mod.rs` defines `Trace` and re-exports `builder::TraceBuilder`; the
builder uses `Trace`). A child that uses an item *defined* in the parent does depend on the
parent, and a parent that calls into a child (`chrome::parse(…)`) depends on the child.

Test code is left out: a module declared `#[cfg(test)] mod tests;` and any item under
`#[cfg(test)]` (e.g. an inline `mod tests { … }`) may import anything, as tests are not layers.

Floors: CORE_FLOORS (core/src) and APP_FLOORS (app/src) below give each file a floor; a file may
import only from its own floor or lower ones.  Every file of those crates must match a pattern (a
new file gets a floor when it is added).  Crates in REPORT_ONLY are analysed and their cycles
counted, never failed (the list is empty since the app's cycle was broken).
"""

from __future__ import annotations

import fnmatch
import os
import re
import sys
from dataclasses import dataclass, field

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (floor, name, files or patterns relative to core/src). A file named exactly wins over any
# pattern; among patterns the first that matches wins.
CORE_FLOORS: list[tuple[int, str, list[str]]] = [
    (0, "foundations", ["rng.rs", "strings.rs", "time.rs", "syntax.rs", "units.rs", "spans.rs"]),
    (1, "import errors, limits, parallel reading", ["import/error.rs", "limits.rs", "par.rs"]),
    (2, "columns", ["model/columns.rs", "model/domain.rs"]),
    (3, "lod", ["lod.rs", "counter_lod.rs"]),
    (4, "model", ["model/*", "model/**/*", "neuron/protowire.rs"]),
    (5, "queries over the model", ["query.rs", "rows.rs", "viewport.rs", "raster.rs", "view.rs"]),
    (6, "importer contract", ["import/api.rs"]),
    (7, "neuron formats", ["neuron/*", "neuron/**/*"]),
    (8, "format importers", ["import/*", "import/**/*"]),
    (9, "importer registry", ["import/mod.rs", "loupe_file.rs", "demo.rs"]),
    (10, "analysis", ["analysis/*", "analysis/**/*"]),
    (11, "view state", ["view_state.rs"]),
    (12, "export", ["export/*", "export/**/*"]),
    (13, "crate root", ["lib.rs"]),
]

# The app's floors, paths relative to app/src (ARCHITECTURE.md, Layers). Same rules as the core's.
APP_FLOORS: list[tuple[int, str, list[str]]] = [
    (0, "view data (pure Rust, no browser, no state)",
     ["fmt.rs", "describe.rs", "canvas/layout.rs", "canvas/colour_index.rs", "workbench/layout.rs",
      "clock.rs", "page_indexes.rs"]),
    (1, "platform (clock, yield, js errors, DOM, storage, model cache, files)",
     ["platform.rs", "dom.rs", "stored.rs", "theme.rs", "url_open.rs", "canvas/scheduler.rs",
      "loader/protocol.rs", "model_cache.rs", "annotation_store.rs", "sources.rs"]),
    (2, "state", ["state.rs", "workbench/context.rs"]),
    (3, "canvas, loader, components, charts and services over the state",
     ["canvas/*", "canvas/**/*", "loader/*", "components/*", "charts.rs", "index_build.rs", "search_runner.rs",
      "lazy_args.rs", "share.rs", "embed.rs"]),
    (4, "widgets", ["widgets/*", "widgets/**/*"]),
    (5, "widget registry", ["widgets/mod.rs"]),
    (6, "deep links", ["deep_link.rs"]),
    (7, "workbench", ["workbench/mod.rs"]),
    (8, "shell", ["components/shell.rs", "components/share_menu.rs", "lib.rs", "main.rs"]),
]

# Files under these folders are separate units that never import each other: each widget is a
# file or a folder of `widgets/` (the brief: "widgets never call each other; they share typed
# state"); what several widgets need lives below them (components/, fmt.rs, ...) or in a shared
# file named here.
APP_SEPARATE: dict[str, set[str]] = {"widgets/": {"widgets/mod.rs", "widgets/deferred.rs"}}


def unit_of(separate: dict[str, set[str]], file: str) -> tuple[str, str] | None:
    """(folder, unit) of a file inside a separated folder, None outside or for a shared file."""
    for folder, shared in separate.items():
        if file.startswith(folder) and file not in shared:
            return folder, file[len(folder):].split("/")[0].removesuffix(".rs")
    return None


@dataclass
class CrateSpec:
    name: str
    src: str  # directory relative to the repository
    roots: list[str]  # root files relative to src
    floors: list[tuple[int, str, list[str]]] | None = None
    report_only: bool = False
    separate: dict[str, set[str]] | None = None


CRATES = [
    CrateSpec("loupe-core", "core/src", ["lib.rs"], CORE_FLOORS),
    CrateSpec("loupe-sqlite", "core/sqlite/src", ["lib.rs"]),
    CrateSpec("loupe-cli", "cli/src", ["main.rs"]),
    CrateSpec("loupe-app", "app/src", ["lib.rs", "main.rs"], APP_FLOORS, separate=APP_SEPARATE),
]
# Crates analysed and reported, never failed (none since the app's cycle was broken).
REPORT_ONLY: list[CrateSpec] = []


# ------------------------------------------------------------------------------------------------
# lexing: blank comments and literal contents, keep offsets and line numbers


def clean_source(text: str) -> str:
    out = list(text)
    i, n = 0, len(text)

    def blank(a: int, b: int) -> None:
        for k in range(a, min(b, n)):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if c == "/" and text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            blank(i, j)
            i = j
        elif c == "/" and text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            blank(i, j)
            i = j
        elif c in "rb" and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")) and \
                re.match(r"(?:br|r)#*\"", text[i:i + 300]):
            m = re.match(r"(?:br|r)(#*)\"", text[i:])
            hashes = m.group(1)
            start = i + m.end()
            end = text.find('"' + hashes, start)
            end = n if end < 0 else end + 1 + len(hashes)
            blank(start, end - 1 - len(hashes))
            i = end
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            blank(i + 1, j)
            i = j + 1
        elif c == "'":
            # char literal or lifetime
            if i + 1 < n and text[i + 1] == "\\":
                j = text.find("'", i + 2)
                j = n if j < 0 else j
                blank(i + 1, j)
                i = j + 1
            elif i + 2 < n and text[i + 2] == "'":
                blank(i + 1, i + 2)
                i += 3
            else:
                i += 1
        else:
            i += 1
    return "".join(out)


def item_end(text: str, start: int) -> int:
    """End offset of the item starting at `start`: a `;` at depth 0 or the `}` closing depth 0."""
    depth, i, n = 0, start, len(text)
    while i < n:
        c = text[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0 and c == "}":
                return i + 1
        elif c == ";" and depth == 0:
            return i + 1
        i += 1
    return n


def blank_range(text: str, a: int, b: int) -> str:
    return text[:a] + "".join("\n" if ch == "\n" else " " for ch in text[a:b]) + text[b:]


CFG_TEST = re.compile(r"#\s*\[\s*cfg\s*\(\s*test\s*\)\s*\]")
ATTR = re.compile(r"\s*#\s*\[[^\]]*\]")
MOD_FILE = re.compile(r"^\s*(?:pub(?:\s*\([^)]*\))?\s+)?mod\s+(\w+)\s*;")


def strip_test_code(text: str) -> tuple[str, set[str]]:
    """Blank every item under #[cfg(test)]; return the text and the names of `mod x;` so gated."""
    test_mods: set[str] = set()
    while True:
        m = CFG_TEST.search(text)
        if not m:
            return text, test_mods
        k = m.end()
        while True:  # further attributes on the same item
            a = ATTR.match(text, k)
            if not a:
                break
            k = a.end()
        mm = MOD_FILE.match(text, k)
        if mm:
            test_mods.add(mm.group(1))
        text = blank_range(text, m.start(), item_end(text, k))


# ------------------------------------------------------------------------------------------------
# use trees


def parse_use_tree(src: str) -> list[tuple[list[str], str | None, bool]]:
    """`a::{b, c::d as e, f::*}` -> [(['a','b'], 'b', False), (['a','c','d'], 'e', False),
    (['a','f'], None, True)]. `self` in a group names the group's path."""
    toks = re.findall(r"::|\w+|[{},*]", src)
    pos = 0

    def tree(prefix: list[str]) -> list[tuple[list[str], str | None, bool]]:
        nonlocal pos
        path = list(prefix)
        while pos < len(toks):
            t = toks[pos]
            if t == "{":
                pos += 1
                res = []
                while pos < len(toks) and toks[pos] != "}":
                    if toks[pos] == ",":
                        pos += 1
                        continue
                    res += tree(path)
                pos += 1
                return res
            if t == "*":
                pos += 1
                return [(path, None, True)]
            if t == "::":
                pos += 1
                continue
            if t in (",", "}"):
                break
            if t == "as":
                alias = toks[pos + 1]
                pos += 2
                return [(path, None if alias == "_" else alias, False)]
            path.append(t)
            pos += 1
        if path and path[-1] == "self":
            path = path[:-1]
        return [(path, path[-1] if path else None, False)]

    return tree([])


# ------------------------------------------------------------------------------------------------
# the module tree of one crate


@dataclass
class Use:
    path: list[str]
    alias: str | None
    glob: bool
    public: bool
    line: int


@dataclass
class Module:
    path: tuple[str, ...]
    file: str
    children: dict[str, tuple[str, ...]] = field(default_factory=dict)
    uses: list[Use] = field(default_factory=list)
    defs: set[str] = field(default_factory=set)
    # (offset range in the file's clean text) for inline modules; None for the file's own module
    span: tuple[int, int] | None = None


USE_RE = re.compile(r"(?<![\w:])(pub(?:\s*\([^)]*\))?\s+)?use\s+([^;]+);")
DEF_RE = re.compile(
    r"(?<![\w:])(?:fn|struct|enum|trait|type|const|static|union|macro_rules!)\s+(\w+)")
INLINE_MOD_RE = re.compile(r"(?<![\w:])(?:pub(?:\s*\([^)]*\))?\s+)?mod\s+(\w+)\s*\{")
PATH_RE = re.compile(r"(?<![\w:])((?:[A-Za-z_]\w*\s*::\s*)+[A-Za-z_]\w*)")


def line_of(text: str, off: int) -> int:
    return text.count("\n", 0, off) + 1


class CrateGraph:
    def __init__(self, name: str, files: dict[str, str], roots: list[str]):
        self.name = name
        self.files = files  # relpath -> source
        self.clean: dict[str, str] = {}
        self.modules: dict[tuple[str, ...], Module] = {}
        self.file_mods: dict[str, list[tuple[str, ...]]] = {}
        self.errors: list[str] = []
        self.test_files: set[str] = set()
        for r in roots:
            if r in files:
                self._load((), r, "" if len(roots) == 1 else r[:-3])
        # edges: src file -> {dst file: first line}
        self.edges: dict[str, dict[str, int]] = {f: {} for f in self.file_mods}
        for f in list(self.file_mods):
            self._edges_of(f)

    # loading ---------------------------------------------------------------------------------
    def _load(self, modpath: tuple[str, ...], file: str, rootname: str) -> None:
        if rootname:
            modpath = (rootname,)
        text, test_mods = strip_test_code(clean_source(self.files[file]))
        self.clean[file] = text
        base = os.path.dirname(file)
        stem = os.path.basename(file)[:-3]
        child_dir = base if stem in ("mod", "lib", "main") else os.path.join(base, stem)
        # inline modules (not under cfg(test): those are blanked)
        spans = []
        for m in INLINE_MOD_RE.finditer(text):
            end = item_end(text, m.start())
            spans.append((m.start(), end, m.group(1)))
        mods: list[tuple[str, ...]] = []

        def modpath_at(off: int) -> tuple[str, ...]:
            p = modpath
            for a, b, nm in spans:  # spans are in order, nested ones after their parent
                if a < off < b:
                    p = p + (nm,)
            return p

        top = Module(modpath, file)
        self.modules[modpath] = top
        mods.append(modpath)
        for a, b, nm in spans:
            mp = modpath_at(a) + (nm,)
            self.modules[mp] = Module(mp, file, span=(a, b))
            self.modules[mp[:-1]].children[nm] = mp
            mods.append(mp)
        self.file_mods[file] = mods
        for m in DEF_RE.finditer(text):
            self.modules[modpath_at(m.start())].defs.add(m.group(1))
        for m in USE_RE.finditer(text):
            owner = self.modules[modpath_at(m.start())]
            for path, alias, glob in parse_use_tree(m.group(2)):
                if path:
                    owner.uses.append(
                        Use(path, alias, glob, bool(m.group(1)), line_of(text, m.start())))
        for lineno, ln in enumerate(text.split("\n"), 1):
            mm = MOD_FILE.match(ln)
            if not mm:
                continue
            name = mm.group(1)
            cands = [os.path.join(child_dir, name + ".rs"), os.path.join(child_dir, name, "mod.rs")]
            found = [c for c in cands if c in self.files]
            if not found:
                if name not in test_mods:
                    self.errors.append(f"{file}:{lineno}: `mod {name};` has no file {cands[0]}")
                continue
            child = found[0]
            if name in test_mods:
                self.test_files.add(child)
                continue
            cp = modpath + (name,)
            top.children[name] = cp
            self._load(cp, child, "")

    # resolution ------------------------------------------------------------------------------
    def _start(self, mod: Module, seg: str, seen: frozenset) -> tuple[str, ...] | None | str:
        """Resolve the first segment of a path written in `mod`: a module path, a file (str) for an
        item, or None for something outside this crate."""
        if seg == "crate":
            return self.root_of(mod.path)
        if seg == "self":
            return mod.path
        if seg == "super":
            return mod.path[:-1] if len(mod.path) > len(self.root_of(mod.path)) else None
        if seg in mod.children:
            return mod.children[seg]
        for u in mod.uses:
            if not u.glob and u.alias == seg:
                key = (mod.path, tuple(u.path))
                if key in seen:
                    return None
                return self._resolve(mod, u.path, seen | {key})
        return None

    def root_of(self, path: tuple[str, ...]) -> tuple[str, ...]:
        return path[:1] if path and path[:1] in self.modules and () not in self.modules else ()

    def _resolve(self, mod: Module, segs: list[str], seen: frozenset = frozenset()):
        """A path written in `mod` -> module path (tuple), defining file (str), or None."""
        cur = self._start(mod, segs[0], seen)
        for i, seg in enumerate(segs[1:], 1):
            if cur is None or isinstance(cur, str):
                return cur
            if seg in ("super",):
                cur = cur[:-1]
                continue
            if seg == "self":
                continue
            m = self.modules.get(cur)
            if m is None:
                return None
            if seg in m.children:
                cur = m.children[seg]
                continue
            return self._lookup(m, seg, seen)
        return cur

    def _lookup(self, m: Module, name: str, seen: frozenset, strict: bool = False):
        """The file defining `name` as seen from module m (following imports and re-exports).
        Not found: m's file (a macro may define it), or None when `strict` (behind a glob)."""
        if name in m.defs:
            return m.file
        if name in m.children:
            return self.modules[m.children[name]].file
        for u in m.uses:
            if not u.glob and u.alias == name:
                key = (m.path, tuple(u.path))
                if key in seen:
                    return m.file
                r = self._resolve(m, u.path, seen | {key})
                if isinstance(r, tuple):
                    return self.modules[r].file if r in self.modules else None
                return r
        for u in m.uses:
            if u.glob:
                key = (m.path, tuple(u.path), "*")
                if key in seen:
                    continue
                t = self._resolve(m, u.path, seen | {key})
                if isinstance(t, tuple) and t in self.modules and self._knows(self.modules[t], name):
                    r = self._lookup(self.modules[t], name, seen | {key}, strict=True)
                    if r is not None:
                        return r
        return None if strict else m.file

    def _knows(self, m: Module, name: str) -> bool:
        return name in m.defs or name in m.children or any(
            not u.glob and u.alias == name for u in m.uses) or any(u.glob for u in m.uses)

    def _target_file(self, r) -> str | None:
        if isinstance(r, tuple):
            m = self.modules.get(r)
            return m.file if m else None
        return r

    def _used_here(self, u: Use, r, words: set[str]) -> bool:
        """Whether the file's own code (outside `use` items) names what `pub use` brings in."""
        if not u.glob:
            return u.alias in words
        m = self.modules.get(r) if isinstance(r, tuple) else None
        if m is None:
            return True
        names = set(m.defs) | set(m.children) | {x.alias for x in m.uses if x.public and x.alias}
        return bool(names & words)

    # edges -----------------------------------------------------------------------------------
    def _edges_of(self, file: str) -> None:
        text = self.clean[file]
        out = self.edges[file]

        def add(dst: str | None, line: int) -> None:
            if dst and dst != file and dst not in self.test_files:
                out.setdefault(dst, line)

        use_spans = [(m.start(), m.end()) for m in USE_RE.finditer(text)]
        body = text
        for a, b in reversed(use_spans):
            body = body[:a] + body[b:]
        words = set(re.findall(r"\w+", body))
        for mp in self.file_mods[file]:
            mod = self.modules[mp]
            for u in mod.uses:
                r = self._resolve(mod, u.path)
                if u.public and not self._used_here(u, r, words):
                    continue  # a facade entry: its users are resolved to the defining file
                if u.glob or not isinstance(r, tuple):
                    add(self._target_file(r), u.line)
                # a module brought in by name: only the paths through it are imports
        spans = sorted((self.modules[mp].span or (0, 0)) + (mp,) for mp in self.file_mods[file])
        for m in PATH_RE.finditer(text):
            if any(a <= m.start() < b for a, b in use_spans):
                continue
            segs = re.split(r"\s*::\s*", m.group(1))
            mp = self.file_mods[file][0]
            for a, b, p in spans:
                if a < m.start() < b:
                    mp = p
            mod = self.modules[mp]
            first = segs[0]
            if not (first in ("crate", "super", "self") or first in mod.children or any(
                    not u.glob and u.alias == first for u in mod.uses)):
                continue
            r = self._resolve(mod, segs)
            add(self._target_file(r), line_of(text, m.start()))


# ------------------------------------------------------------------------------------------------
# checks


def sccs(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:
        # iterative Tarjan
        work = [(v, iter(sorted(graph.get(v, {}))))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, {})))))
                    advanced = True
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def a_cycle(graph: dict[str, dict[str, int]], comp: list[str]) -> list[str]:
    """One shortest cycle through the first file of a strongly connected component."""
    inside = set(comp)
    start = comp[0]
    prev: dict[str, str] = {}
    frontier = [start]
    seen = {start}
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph[v]):
                if w not in inside:
                    continue
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(prev[path[-1]])
                    return list(reversed(path)) + [start]
                if w not in seen:
                    seen.add(w)
                    prev[w] = v
                    nxt.append(w)
        frontier = nxt
    return comp


def floor_of(floors, file: str):
    """A file named exactly in the table gets that floor; otherwise the first pattern matching it
    (`*` stays within one directory, `**/` spans any number)."""
    for fl, name, pats in floors:
        if file in pats:
            return fl, name
    for fl, name, pats in floors:
        for p in pats:
            if fnmatch.fnmatchcase(file, p) and (p.count("/") == file.count("/") or "**" in p):
                return fl, name
    return None


def check(g: CrateGraph, floors, prefix: str, separate=None) -> tuple[list[str], list[list[str]]]:
    """Problems (messages) and the cycles found."""
    problems = [f"{g.name}: {e}" for e in g.errors]
    for f in sorted(g.edges):
        uf = unit_of(separate or {}, f)
        if uf is None:
            continue
        for dst, line in sorted(g.edges[f].items()):
            ud = unit_of(separate or {}, dst)
            if ud is not None and ud[0] == uf[0] and ud[1] != uf[1]:
                problems.append(
                    f"{g.name}: {prefix}{f}:{line} ({uf[0]}{uf[1]}) imports {prefix}{dst} ({ud[0]}{ud[1]}):"
                    f" the units of {prefix}{uf[0]} never import each other (move what both need below"
                    " them, or into a shared file of APP_SEPARATE)")
    comps = sccs(g.edges)
    for comp in comps:
        cyc = a_cycle(g.edges, comp)
        steps = "\n".join(
            f"    {prefix}{a}:{g.edges[a][b]} imports {prefix}{b}" for a, b in zip(cyc, cyc[1:]))
        problems.append(
            f"{g.name}: import cycle among {len(comp)} files ({', '.join(prefix + c for c in comp)});"
            f" one loop:\n{steps}")
    if floors:
        for f in sorted(g.edges):
            ff = floor_of(floors, f)
            if ff is None:
                problems.append(f"{g.name}: {prefix}{f} has no floor in the crate's table "
                                "(CORE_FLOORS / APP_FLOORS in scripts/check_imports.py): add it")
                continue
            for dst, line in sorted(g.edges[f].items()):
                fd = floor_of(floors, dst)
                if fd is not None and fd[0] > ff[0]:
                    problems.append(
                        f"{g.name}: upward import: {prefix}{f}:{line} (floor {ff[0]} {ff[1]}) "
                        f"imports {prefix}{dst} (floor {fd[0]} {fd[1]})")
    return problems, comps


def read_crate(spec: CrateSpec) -> dict[str, str]:
    base = os.path.join(REPO, spec.src)
    files = {}
    for d, _, names in os.walk(base):
        for nm in names:
            if nm.endswith(".rs"):
                p = os.path.join(d, nm)
                with open(p, encoding="utf-8") as fh:
                    files[os.path.relpath(p, base)] = fh.read()
    return files


def build(spec: CrateSpec) -> CrateGraph:
    return CrateGraph(spec.name, read_crate(spec), spec.roots)


# ------------------------------------------------------------------------------------------------
# self-test

SELF_TESTS = [
    # name, files, floors, expect: set of substrings that must appear ("" = clean)
    ("clean graph with a facade", {
        "lib.rs": "pub mod a;\npub mod b;\npub use a::Thing;\n",
        "a/mod.rs": "mod inner;\npub use inner::Thing;\n",
        "a/inner.rs": "pub struct Thing;\n",
        "b.rs": "use crate::Thing;\nuse super::a::Thing as T2;\npub fn f() -> crate::a::Thing { "
                "crate::a::Thing }\n#[cfg(test)]\nmod tests { use crate::lib_only; }\n",
    }, [(0, "a", ["a/*"]), (1, "b", ["b.rs"]), (2, "root", ["lib.rs"])], []),
    ("a parent defining an item and re-exporting a child that uses it is no cycle", {
        "lib.rs": "pub mod model;\npub use model::{Builder, Trace};\n",
        "model/mod.rs": "pub mod builder;\npub use builder::Builder;\npub struct Trace;\n",
        "model/builder.rs": "use super::Trace;\npub struct Builder(Trace);\n",
    }, [(0, "model", ["model/*"]), (1, "root", ["lib.rs"])], []),
    ("a parent using its re-export in its own code depends on the child", {
        "lib.rs": "pub mod model;\n",
        "model/mod.rs": "pub mod builder;\npub use builder::Builder;\npub struct Trace;\n"
                        "impl Trace { fn b(&self) -> Builder { todo!() } }\n",
        "model/builder.rs": "use super::Trace;\npub struct Builder(Trace);\n",
    }, None, ["import cycle among 2 files (model/builder.rs, model/mod.rs)"]),
    ("cycle between two files", {
        "lib.rs": "mod a;\nmod b;\n",
        "a.rs": "use crate::b::B;\npub struct A;\n",
        "b.rs": "pub struct B;\nfn f() -> crate::a::A { todo!() }\n",
    }, None, ["import cycle among 2 files (a.rs, b.rs)", "b.rs:2 imports a.rs", "a.rs:1 imports b.rs"]),
    ("child using an item defined in its parent, parent using the child", {
        "lib.rs": "mod reg;\n",
        "reg/mod.rs": "mod imp;\npub struct Contract;\nfn all() { imp::go() }\n",
        "reg/imp.rs": "use super::Contract;\npub fn go() {}\n",
    }, None, ["import cycle among 2 files (reg/imp.rs, reg/mod.rs)"]),
    ("upward import", {
        "lib.rs": "pub mod low;\npub mod high;\n",
        "low.rs": "/* use crate::high::H; */ pub fn f() -> &'static str { \"crate::high::H\" }\n"
                  "pub fn g() { let _ = crate::high::H; }\n",
        "high.rs": "pub struct H;\nuse crate::low::f;\n",
    }, [(0, "low", ["low.rs"]), (1, "high", ["high.rs"]), (2, "root", ["lib.rs"])],
        ["upward import: low.rs:2 (floor 0 low) imports high.rs (floor 1 high)",
         "import cycle among 2 files"]),
    ("two glob re-exports: each name goes to the file defining it", {
        "lib.rs": "pub mod imp;\n",
        "imp/mod.rs": "pub mod api;\npub mod error;\npub mod fmt;\npub use api::*;\npub use error::*;\n"
                      "pub fn registry() { fmt::go() }\n",
        "imp/api.rs": "use super::error::Err;\npub trait Importer { fn f(&self) -> Err; }\n",
        "imp/error.rs": "pub enum Err { A }\n",
        "imp/fmt.rs": "use crate::imp::{Err, Importer};\npub fn go() { let _ = super::Err::A; }\n",
    }, None, []),
    ("the app's table: the old state <-> colour loop fails, a widget's facade import does not", {
        "lib.rs": "pub mod fmt;\npub mod state;\npub mod canvas;\npub mod widgets;\n",
        "fmt.rs": "pub fn fmt_bytes() {}\n",
        "state.rs": "pub struct TraceData;\nfn f() { let _ = crate::canvas::colour::NEUTRAL; }\n",
        "canvas/mod.rs": "pub mod colour;\n",
        "canvas/colour.rs": "use crate::state::TraceData;\npub const NEUTRAL: usize = 0;\n",
        "widgets/mod.rs": "pub mod a;\npub use crate::fmt::fmt_bytes;\n",
        "widgets/a.rs": "use crate::widgets::fmt_bytes;\npub fn g() { fmt_bytes() }\n",
    }, APP_FLOORS,
        ["import cycle among 2 files (canvas/colour.rs, state.rs)",
         "upward import: state.rs:2 (floor 2 state) imports canvas/colour.rs (floor 3 "]),
    ("the app's widgets: one widget importing another fails, its own file and the shared ones do not", {
        "lib.rs": "pub mod fmt;\npub mod widgets;\n",
        "fmt.rs": "pub fn fmt_bytes() {}\n",
        "widgets/mod.rs": "pub mod a;\npub mod b;\npub mod deferred;\n",
        "widgets/deferred.rs": "pub fn spinner() {}\n",
        "widgets/a.rs": "pub fn table() {}\n",
        "widgets/b/mod.rs": "mod lanes;\nuse crate::widgets::a::table;\nuse lanes::Ctl;\nuse super::deferred::spinner;\n"
                            "pub fn w() { table(); spinner(); let _ = Ctl; }\n",
        "widgets/b/lanes.rs": "pub struct Ctl;\n",
    }, APP_FLOORS,
        ["widgets/b/mod.rs:2 (widgets/b) imports widgets/a.rs (widgets/a): the units of widgets/ never import each other"]),
    ("module alias and glob", {
        "lib.rs": "mod m;\nmod n;\n",
        "m/mod.rs": "pub mod cols;\npub use cols::*;\n",
        "m/cols.rs": "pub struct Cols;\n",
        "n.rs": "use crate::m;\nfn f(_: m::Cols) {}\n",
    }, [(0, "cols", ["m/cols.rs"]), (1, "m", ["m/mod.rs"]), (2, "n", ["n.rs"]),
        (3, "root", ["lib.rs"])], []),
]


def self_test() -> int:
    failed = 0
    for name, files, floors, expect in SELF_TESTS:
        g = CrateGraph("t", files, ["lib.rs"])
        problems, _ = check(g, floors, "", APP_SEPARATE if floors is APP_FLOORS else None)
        text = "\n".join(problems)
        ok = (not problems) if not expect else all(e in text for e in expect)
        if name == "module alias and glob":
            ok = ok and g.edges["n.rs"] == {"m/cols.rs": 2}
        if name.startswith("two glob"):
            ok = ok and g.edges["imp/fmt.rs"] == {"imp/api.rs": 1, "imp/error.rs": 1}
        if name.startswith("the app's table"):
            ok = ok and g.edges["widgets/a.rs"] == {"fmt.rs": 1} and "widgets/a.rs" not in text
        if name.startswith("the app's widgets"):
            ok = ok and len(problems) == 1
        if name == "clean graph with a facade":
            ok = ok and set(g.edges["b.rs"]) == {"a/inner.rs"}
        print(f"self-test {'ok  ' if ok else 'FAIL'} {name}")
        if not ok:
            failed += 1
            print("  problems:\n  " + text.replace("\n", "\n  "))
            print(f"  edges: {g.edges}")
    print("self-test: " + ("all passed" if not failed else f"{failed} failed"))
    return 1 if failed else 0


# ------------------------------------------------------------------------------------------------


def main(argv: list[str]) -> int:
    if "--self-test" in argv:
        return self_test()
    if "--edges" in argv:
        i = argv.index("--edges")
        if i + 1 >= len(argv):
            print("--edges needs a file", file=sys.stderr)
            return 2
        want = os.path.relpath(os.path.abspath(argv[i + 1]), REPO)
        for spec in CRATES + REPORT_ONLY:
            if want.startswith(spec.src + "/"):
                g = build(spec)
                rel = os.path.relpath(want, spec.src)
                if rel not in g.edges:
                    print(f"{want} is not a module of {spec.name} (or is test-only)")
                    return 1
                fl = floor_of(spec.floors, rel) if spec.floors else None
                print(f"{want}" + (f" (floor {fl[0]} {fl[1]})" if fl else "") + " imports:")
                for dst, line in sorted(g.edges[rel].items()):
                    fd = floor_of(spec.floors, dst) if spec.floors else None
                    print(f"  line {line}: {spec.src}/{dst}" + (f" (floor {fd[0]})" if fd else ""))
                print("imported by:")
                for src in sorted(g.edges):
                    if rel in g.edges[src]:
                        print(f"  {spec.src}/{src}:{g.edges[src][rel]}")
                return 0
        print(f"{want} is in none of the checked crates", file=sys.stderr)
        return 2
    failures = 0
    for spec in CRATES:
        g = build(spec)
        problems, _ = check(g, spec.floors, spec.src + "/", spec.separate)
        nedges = sum(len(v) for v in g.edges.values())
        for p in problems:
            print(p)
        failures += len(problems)
        print(f"check_imports: {spec.name}: {len(g.edges)} files, {nedges} imports, "
              f"{len(problems)} problem(s)")
    for spec in REPORT_ONLY:
        if not os.path.isdir(os.path.join(REPO, spec.src)):
            continue
        g = build(spec)
        comps = sccs(g.edges)
        sizes = ", ".join(str(len(c)) for c in comps) or "none"
        print(f"check_imports: {spec.name} (report only): {len(g.edges)} files, "
              f"{len(comps)} cycle(s) (files per cycle: {sizes})")
        if "-v" in argv:
            for p in check(g, None, spec.src + "/")[0]:
                print("  " + p.replace("\n", "\n  "))
    if failures:
        print(f"check_imports: {failures} problem(s): see ARCHITECTURE.md, Layers")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
