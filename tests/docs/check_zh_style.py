#!/usr/bin/env python3
"""The Chinese of the catalog (po/zh_CN.po) and of the hand-written Chinese docs (docs/*.zh.md) against the two rules of
po/glossary.md:
  - punctuation: in Chinese prose, full-width , : ; ( ) ? -> ， ： ； （ ） ？. An ASCII one is wrong right after a
    Chinese character or full-width punctuation mark, and a pair of ASCII parentheses is wrong when either of
    them touches Chinese (inside or outside); formulas and code keep ASCII (θ_i = base^(-2i/d), --base, 2i,2i+1).
  - one glossary: the terms the glossary replaces (for example 基数 for "base") do not occur, nor the words that
    read wrongly (使得分) or name the pair layout another way (interleaved 排列; 交错 on the live page).
  - a formula keeps its ASCII brackets: no full-width bracket beside a formula's operator.
  - in the catalog, an ASCII ( or : that the English writes as prose (" (docs/math.md)", "{1}: {2}") is not glued
    to the word beside it in the Chinese ("k(docs/math.md)", "{1}:{2} 缩放"): it is prose, full-width.
  - in the catalog, a comma or semicolon that the English writes as prose (followed by a space: "RoPE, base = {1}")
    is prose in the Chinese too, even between Latin words ("RoPE，base = {1}"); one the English writes without a
    space (t,h,w; a,b; x0,x1) is notation and stays ASCII.
In the docs, code blocks and `code spans` are left out (they quote what a program prints or reads); in the
catalog, every msgstr, with its msgid for the third rule.

usage: check_zh_style.py ROOT            check; exit 1 naming every violation (file, line, the text around it)
       check_zh_style.py --fix FILE...   rewrite the punctuation of the files by the rule (glossary terms are
                                         not replaced automatically: a word may need a different sentence)
"""
import re
import sys
from pathlib import Path

FULL = {",": "，", ":": "：", ";": "；", "(": "（", ")": "）", "?": "？"}

# The glossary's replaced terms: term -> the one to use (po/glossary.md).
REPLACED = {
    "基数": "底数",
    "临界维数": "临界维度",
    "头维数": "头维度",
}


def is_cjk(ch):
    cp = ord(ch)
    return (0x2E80 <= cp <= 0x9FFF or 0xF900 <= cp <= 0xFAFF or 0xFF00 <= cp <= 0xFFEF or 0x3000 <= cp <= 0x303F
            or cp >= 0x20000)


def _pairs(text):
    """Matching ASCII parentheses: list of (open, close) indices."""
    stack, pairs = [], []
    for i, ch in enumerate(text):
        if ch == "(":
            stack.append(i)
        elif ch == ")" and stack:
            pairs.append((stack.pop(), i))
    return pairs


def _after_cjk(text, i):
    return i > 0 and is_cjk(text[i - 1])


# Colons of notation, not of prose: ranges A:B:STEP and 0:seq, a file and line, arXiv numbers, {0}:{1}.
NOT_A_COLON = [r"\bA:B", r"B:STEP", r"\d:seq", r"\d:\d", r"\.(py|cpp|hpp|h|cc|c):\d", r"arXiv:", r"\}:\{",
               r"https?:"]
EQUATION = re.compile(r"[A-Z]{1,2}\d+[a-z]?")  # (M13), (X4), (S19): an equation's label, notation


def _next_visible(text, i):
    j = i + 1
    while j < len(text) and text[j] == " ":
        j += 1
    return text[j] if j < len(text) else ""


def _fields(text):
    """Indices inside format fields {0:.3g} (their colon and commas are the field's, not prose)."""
    inside = set()
    for m in re.finditer(r"\{[^{}]*\}", text):
        inside.update(range(m.start(), m.end()))
    return inside


# Operators of a formula: a bracket next to one is the formula's and stays ASCII, as its partner does
# ("(arg z_k + Nθ) − (arg z_q + Mθ)", never "（arg z_k + Nθ）− (arg z_q + Mθ)").
OPERATORS = "−+=≡·×"


def violations(text):
    """Indices of ASCII punctuation that the rule makes full-width: , : ; right after Chinese or before it
    (a space between allowed), and a pair of parentheses around Chinese or right next to it (an equation's
    label such as (M13) stays as the docs write it)."""
    bad = set()
    for i, ch in enumerate(text):
        if ch in ",:;":
            after = _next_visible(text, i)
            if (i > 0 and is_cjk(text[i - 1])) or (after and is_cjk(after) and after not in "（"):
                bad.add(i)
    chinese = any(is_cjk(ch) for ch in text)
    if chinese:  # a comma between two statements: "d = {0},base = {1}", "c = {0},q 在…", not lists t,h,w
        for m in re.finditer(r"(?<=[}\d)]),(?=[^\s{,]+ (=|在|为|是))", text):
            bad.add(m.start())
    if chinese:  # a colon between two words of a Chinese sentence: "未给出 factor:f = …" (not A:B, file.py:12)
        for m in re.finditer(r"(?<=\S):(?=[^\s/:])", text):
            around = text[max(0, m.start() - 12):m.start() + 12]
            if not any(re.search(p, around) for p in NOT_A_COLON):
                bad.add(m.start())
    for m in re.finditer(r"[,;](?=(\\n)?$)", text):  # a sentence of Chinese that ends in , or ;
        if chinese:
            bad.add(m.start())
    for i, ch in enumerate(text):
        if ch == "?" and i > 0 and is_cjk(text[i - 1]):
            bad.add(i)
    for o, c in _pairs(text):
        inside = text[o + 1:c]
        if EQUATION.fullmatch(inside):
            continue
        if re.match(r"\s?[" + OPERATORS + "]", text[c + 1:]) and not any(is_cjk(ch) for ch in inside):
            continue  # a formula's bracket, (arg z_k + Nθ) − (arg z_q + Mθ), stays ASCII after a Chinese colon
        han_after = c + 1 < len(text) and 0x4E00 <= ord(text[c + 1]) <= 0x9FFF
        if any(is_cjk(ch) for ch in inside) or (o > 0 and is_cjk(text[o - 1])) or han_after:
            bad.update((o, c))
    return sorted(bad - _fields(text))


# A run of characters that are neither white space nor Chinese: a Latin word, a number, a formula, {0}.
WORD = r"[^\s,;\u2E80-\u9FFF\uF900-\uFAFF\uFF00-\uFFEF\u3000-\u303F]*"


def spaced_in_english(text, english):
    """Indices of ASCII , ; in the Chinese `text` that join two words without a space where the English does
    not join them: "{3},base" when the English says "{3}, base" (notation such as t,h,w occurs in the English
    as it is)."""
    bad = set()
    for m in re.finditer(r"[,;]", text):
        i = m.start()
        if i == 0 or i + 1 >= len(text) or text[i - 1].isspace() or text[i + 1].isspace():
            continue
        if is_cjk(text[i - 1]) or is_cjk(text[i + 1]):
            continue  # the first rule's
        left = re.search(WORD + "$", text[:i]).group(0)
        right = re.match(WORD, text[i + 1:]).group(0)
        if left + text[i] + right not in english:
            bad.add(i)
    return bad - _fields(text)


def formula_brackets(text):
    """Indices of the full-width brackets of a formula written half in full-width brackets: "（a + b）− (c + d)" or
    "(a + b) − （c + d）", neither inside holding Chinese."""
    bad = set()
    op = "[" + OPERATORS + "]"
    for m in re.finditer(r"（([^（）]*)）\s?" + op + r"\s?\(([^()]*)\)|\(([^()]*)\)\s?" + op + r"\s?（([^（）]*)）", text):
        if not any(is_cjk(ch) for g in m.groups() if g for ch in g):
            bad.update(i for i in range(m.start(), m.end()) if text[i] in "（）")
    return bad


def glued_to_english(text, english):
    """Indices of ASCII ( and : that the English writes as prose (a space before "(docs/…", after ":") but the
    Chinese glues to the word before or after: "k(docs/math.md)" for "k (docs/math.md)",
    "来自{0}{1}:{2} 缩放" for "{1}: {2} scaling"; and a Chinese that starts with the English's leading ", ".
    Formulas are left alone: the English writes f(0), R(Mθ) and A:B without the space too."""
    bad = set()
    if not any(is_cjk(ch) for ch in text):
        return bad
    for o, c in _pairs(text):
        inside = text[o:c + 1]
        # a reference to a page of the docs, glued: k(docs/math.md), {3}(docs/scaling.md)
        if o > 0 and not text[o - 1].isspace() and text[o - 1] not in "（(" and inside.startswith("(docs/") \
                and " " + inside in english:
            bad.add(o)
    for m in re.finditer(r":(?=\S)", text):
        after = re.match(r"[^\s，。；：]+", text[m.end():])
        if after and ": " + after.group(0) in english and ":" + after.group(0) not in english:
            bad.add(m.start())
    if text[:1] in ",:" and english.startswith(text[0] + " "):
        bad.add(0)
    return bad - _fields(text)


# Words the catalog once built that read wrongly: 使得分 reads as 使得 + 分 ("错误使得分改变").
MISREAD = {"使得分": "让得分", "interleaved 排列": "相邻配对（interleaved）", "half 排列": "前后半配对（half）"}
# A layout given as a field before 排列 ("符合 {0} 排列"): the field holds the English word, so the sentence reads
# "符合 interleaved 排列". The layout is a nested message in the glossary's words (models/rope_spec.hpp layout_term:
# 相邻配对（interleaved）, 前后半配对（half）) or one sentence per layout.
LAYOUT_FIELD = re.compile(r"\{\d+\}\s*排列")
# The live page (web/lesson.js) shows the pair layout only: there 交错 (M-RoPE's interleaved sections elsewhere)
# would name it a third way.
PAGE_REPLACED = {"交错": "相邻配对"}


def fix(text, english=None):
    """`text` with the punctuation of violations() (and, given the English, spaced_in_english()) full-width; a space after a full-width , : ; or ) and a
    space before a full-width ( next to Chinese dropped (full-width marks carry their own space)."""
    while True:
        bad = sorted(set(violations(text)) | (spaced_in_english(text, english) if english else set()))
        if not bad:
            break
        chars = list(text)
        for i in bad:
            chars[i] = FULL[chars[i]]
        text = "".join(chars)
    text = re.sub(r"([，：；）]) (?=\S)", r"\1", text)
    text = re.sub(r"(?<=\S) （", "（", text)
    return text


def po_strings(path):
    """(line number, text, English) of every msgstr line of a .po file, its C escapes kept as written; English
    is the entry's whole msgid (its lines joined)."""
    out, mode, english = [], None, ""
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("msgid "):
            mode, english = "id", line[len('msgid "'):-1]
        elif line.startswith("msgstr"):
            mode = "str"
            m = re.match(r'msgstr(?:\[\d+\])? "(.*)"$', line)
            if m:
                out.append((n, m.group(1), english))
        elif mode == "id" and line.startswith('"'):
            english += line[1:-1]
        elif mode == "str" and line.startswith('"'):
            out.append((n, line[1:-1], english))
        else:
            mode = None
    return out


def page_strings(root):
    """(msgid, msgstr) of the catalog's entries that the live page shows: the ids of web/lesson.html's data-tr
    and of web/lesson.js's tr() and N_(), found as scripts/live_page.py finds them."""
    sys.path.insert(0, str(root / "scripts"))
    import live_page  # noqa: E402 (the page's own reading of its ids and of the catalog)
    ids = live_page.page_ids((root / "web/lesson.js").read_text(encoding="utf-8"),
                             (root / "web/lesson.html").read_text(encoding="utf-8"))
    return [(msgid, msgstr) for context, msgid, msgstr, _ in live_page.read_po(root / "po/zh_CN.po")
            if not context and msgid in ids]


def md_prose(path):
    """(line number, text) of the prose of a Markdown file: no fenced block, no `code span`, no link target,
    no HTML comment."""
    out, fenced = [], False
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced or line.lstrip().startswith("<!--"):
            continue
        prose = re.sub(r"`[^`]*`", "\uE000", line)
        prose = re.sub(r"\]\([^)]*\)", "]", prose)
        out.append((n, prose))
    return out


def fix_file(path):
    p = Path(path)
    lines = p.read_text(encoding="utf-8").split("\n")
    if p.suffix == ".po":
        for n, text, english in po_strings(p):
            line = lines[n - 1]
            start = line.index('"') + 1
            lines[n - 1] = line[:start] + fix(text, english) + '"'

    else:
        fenced = False
        for k, line in enumerate(lines):
            if line.lstrip().startswith("```"):
                fenced = not fenced
                continue
            if fenced or line.lstrip().startswith("<!--"):
                continue
            # the prose only: code spans and link targets stand aside as private-use characters meanwhile
            kept = []

            def hold(m):
                kept.append(m.group(0))
                return chr(0xE000 + len(kept) - 1)

            prose = fix(re.sub(r"`[^`]*`|\]\([^)]*\)", hold, line))
            lines[k] = re.sub("[\uE000-\uEFFF]", lambda m: kept[ord(m.group(0)) - 0xE000], prose)
    p.write_text("\n".join(lines), encoding="utf-8")


def check(root):
    root = Path(root)
    sources = [("po/zh_CN.po", po_strings(root / "po/zh_CN.po"))]
    # The hand-written Chinese docs; docs/errors.zh.md is written by the malformed-input sweep from the
    # catalog's messages, so it follows the catalog when it is regenerated.
    docs = [p for p in sorted((root / "docs").glob("*.zh.md")) if not p.name.startswith("errors")]
    sources += [(str(p.relative_to(root)), [(n, text, None) for n, text in md_prose(p)]) for p in docs]
    problems = []
    for name, lines in sources:
        for n, text, english in lines:
            extra = spaced_in_english(text, english) if english else set()
            for i in sorted(set(violations(text)) | extra):
                problems.append(f"{name}:{n}: ASCII '{text[i]}' in Chinese prose (use '{FULL[text[i]]}'): "
                                f"…{text[max(0, i - 12):i + 12]}…")
            for term, use in REPLACED.items():
                if term in text:
                    problems.append(f"{name}:{n}: '{term}' is not in the glossary (po/glossary.md): use '{use}'")
            for i in sorted(formula_brackets(text)):
                problems.append(f"{name}:{n}: full-width '{text[i]}' in a formula (its partner and the formula are "
                                f"ASCII): …{text[max(0, i - 12):i + 12]}…")
            if english is not None:
                for i in sorted(glued_to_english(text, english)):
                    problems.append(f"{name}:{n}: ASCII '{text[i]}' glued to a word where the English has a space "
                                    f"(prose: use '{FULL[text[i]]}'): …{text[max(0, i - 12):i + 12]}…")
            for term, use in MISREAD.items():
                if term in text:
                    problems.append(f"{name}:{n}: '{term}' (po/glossary.md): use '{use}'")
            if english is not None:
                for m in LAYOUT_FIELD.finditer(text):
                    problems.append(f"{name}:{n}: '{m.group(0)}': a layout as a field puts an English word in a "
                                    f"Chinese sentence; name it in the glossary's words (po/glossary.md)")
    for msgid, text in page_strings(root):
        for term, use in PAGE_REPLACED.items():
            if term in text:
                problems.append(f"po/zh_CN.po: the live page's \"{msgid}\" is '{text}': '{term}' is not the glossary's "
                                f"layout term, use '{use}'")
    for p in problems:
        print(p)
    checked = sum(len(lines) for _, lines in sources)
    if problems:
        print(f"{len(problems)} problems in {checked} lines of Chinese (po/glossary.md has the rules; "
              f"--fix rewrites the punctuation)")
        return 1
    print(f"the Chinese of {len(sources)} files ({checked} lines) follows po/glossary.md")
    return 0


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--fix":
        for f in sys.argv[2:]:
            fix_file(f)
        sys.exit(0)
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(check(sys.argv[1]))
