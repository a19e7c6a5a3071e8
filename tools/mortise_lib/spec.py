"""The model language: tokens, parse tree, numbers with units, messages.

Grammar (docs/mortise.md has it in EBNF with the paper's typesetting slips):

    spec   = layer { "::" layer } [ "." ]
    layer  = NAME [ "(" [ arg { "," arg } ] ")" ]
    arg    = NAME [ "=" value ]
    value  = scalar | "[" scalar "," scalar "]"
    scalar = NUMBER [ UNIT ] | NAME          (SIZE_MAX is a NAME)

Every message carries the offset it is about, so the caller can print the
line and column with a caret under it.
"""
from __future__ import annotations

import re
from typing import cast

UNITS = {"b": 1, "k": 1 << 10, "kb": 1 << 10, "kib": 1 << 10,
         "m": 1 << 20, "mb": 1 << 20, "mib": 1 << 20,
         "g": 1 << 30, "gb": 1 << 30, "gib": 1 << 30,
         "t": 1 << 40, "tb": 1 << 40, "tib": 1 << 40}
SIZE_MAX = (1 << 64) - 1
IDENT = re.compile(r"[A-Za-z_](?:[A-Za-z0-9_]|\\_)*")
NUMBER = re.compile(r"(0[xX][0-9A-Fa-f]+|[0-9]+)([A-Za-z][A-Za-z0-9_]*)?")


class SpecError(Exception):
    """A spec the compiler refuses; pos is the offset in the spec text."""

    def __init__(self, msg: str, pos: int, length: int = 1) -> None:
        super().__init__(msg)
        self.msg, self.pos, self.length = msg, pos, max(1, length)


class Warning_:
    def __init__(self, msg: str, pos: int, length: int = 1) -> None:
        self.msg, self.pos, self.length = msg, pos, max(1, length)


def location(text: str, pos: int) -> tuple[int, int, str]:
    """(line number, column, the line's text), all 1-based, for offset pos."""
    pos = max(0, min(pos, len(text)))
    start = text.rfind("\n", 0, pos) + 1
    end = text.find("\n", pos)
    end = len(text) if end < 0 else end
    return text.count("\n", 0, pos) + 1, pos - start + 1, text[start:end]


WINDOW = 100


def render(text: str, level: str, msg: str, pos: int, length: int = 1) -> str:
    """'error: column 12: msg' (or 'line 2, column 3'), the line, a caret.

    A line longer than WINDOW characters is cut to a window around the caret
    ('...' marks the cuts); the column is always the column in the spec."""
    line, col, src = location(text, pos)
    where = f"column {col}" if "\n" not in text else f"line {line}, column {col}"
    length = max(1, min(length, len(src) - col + 1))
    start = 0
    if len(src) > WINDOW:
        start = max(0, min(col - 1 - WINDOW // 2, len(src) - WINDOW))
        shown = src[start:start + WINDOW]
        lead = "..." if start else ""
        src = lead + shown + ("..." if start + WINDOW < len(src) else "")
        start -= len(lead)
    caret = " " * (col - 1 - start) + "^" + "~" * (length - 1)
    return f"{level}: {where}: {msg}\n  {src}\n  {caret}"


class Token:
    def __init__(self, kind: str, text: str, pos: int, value: str = "") -> None:
        self.kind, self.text, self.pos, self.value = kind, text, pos, value

    @property
    def end(self) -> int:
        return self.pos + len(self.text)


def tokenize(text: str, warnings: list[Warning_]) -> list[Token]:
    tokens: list[Token] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c.isspace():
            i += 1
            continue
        if c == ":":
            j = i
            while j < len(text) and text[j] == ":":
                j += 1
            n = j - i
            if n > 3:
                raise SpecError(f"'{text[i:j]}' is not a separator: layers are "
                                "separated by '::'", i, n)
            if n != 2:
                warnings.append(Warning_(f"'{text[i:j]}' read as '::' (a typesetting "
                                         "slip in the paper's lines)", i, n))
            tokens.append(Token("sep", text[i:j], i))
            i = j
            continue
        if c in "()[],=":
            tokens.append(Token(c, c, i))
            i += 1
            continue
        m = IDENT.match(text, i)
        if m:
            word = m.group(0)
            if "\\_" in word:
                warnings.append(Warning_(f"'\\_' read as '_' in '{word}' (an escaped "
                                         "underscore as printed)", i, len(word)))
            tokens.append(Token("name", word, i, word.replace("\\_", "_")))
            i = m.end()
            continue
        m = NUMBER.match(text, i)
        if m:
            tokens.append(Token("number", m.group(0), i))
            i = m.end()
            continue
        if c == "." and not text[i + 1:].strip():
            warnings.append(Warning_("the full stop after the spec is ignored (as "
                                     "printed in the paper)", i))
            i += 1
            continue
        if c == "." and tokens and tokens[-1].kind == "number" and tokens[-1].end == i:
            raise SpecError(f"'{tokens[-1].text}.': sizes are whole numbers (write "
                            "1536KB, not 1.5MB)", tokens[-1].pos, i + 1 - tokens[-1].pos)
        raise SpecError(f"unexpected character '{c}'", i)
    _check_brackets(tokens, text)
    return tokens


def _check_brackets(tokens: list[Token], text: str) -> None:
    stack: list[Token] = []
    pairs = {")": "(", "]": "["}
    for t in tokens:
        if t.kind in "([":
            stack.append(t)
        elif t.kind in ")]":
            if not stack:
                raise SpecError(f"'{t.kind}' without a matching '{pairs[t.kind]}'", t.pos)
            open_ = stack.pop()
            if open_.kind != pairs[t.kind]:
                raise SpecError(f"'{t.kind}' closes the '{open_.kind}' opened at "
                                f"column {location(text, open_.pos)[1]}", t.pos)
    if stack:
        t = stack[-1]
        close = ")" if t.kind == "(" else "]"
        raise SpecError(f"'{t.kind}' is never closed (missing '{close}')", t.pos)


class Value:
    """A slot value: kind 'number' (int, unit text), 'name', or 'range' (lo, hi).

    number is read only for a 'number', name only for a 'name'."""

    def __init__(self, kind: str, pos: int, end: int, text: str, number: int = 0, unit: str = "",
                 name: str = "", items: tuple[Value, ...] = ()) -> None:
        self.kind, self.pos, self.end, self.text = kind, pos, end, text
        self.number, self.unit, self.name, self.items = number, unit, name, items

    @property
    def is_size_max(self) -> bool:
        return self.kind == "name" and self.name == "SIZE_MAX"


class Arg:
    def __init__(self, name: str, pos: int, value: Value | None) -> None:
        self.name, self.pos, self.value = name, pos, value   # value None: bare


class LayerRef:
    def __init__(self, name: str, pos: int, args: list[Arg], end: int) -> None:
        self.name, self.pos, self.args, self.end = name, pos, args, end


class Spec:
    def __init__(self, text: str, layers: list[LayerRef], warnings: list[Warning_]) -> None:
        self.text, self.layers, self.warnings = text, layers, warnings


def number_value(tok: Token) -> tuple[int, str]:
    """A number token as (bytes, unit): hex or decimal, then an optional unit."""
    m = NUMBER.fullmatch(tok.text)
    assert m is not None        # the tokenizer matched NUMBER on this text
    digits, unit = m.group(1), m.group(2) or ""
    n = int(digits, 16) if digits[:2].lower() == "0x" else int(digits)
    if unit:
        scale = UNITS.get(unit.lower())
        if scale is None:
            raise SpecError(f"unknown unit '{unit}' in '{tok.text}' (use B, KB or KiB, "
                            "MB or MiB, GB or GiB, TB or TiB: powers of 1024)",
                            tok.pos + len(digits), len(unit))
        n *= scale
    if n > SIZE_MAX:
        raise SpecError(f"'{tok.text}' does not fit in 64 bits (the largest size is "
                        "SIZE_MAX)", tok.pos, len(tok.text))
    return n, unit


class Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.warnings: list[Warning_] = []
        self.tokens = tokenize(text, self.warnings)
        self.i = 0

    def peek(self) -> Token | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def take(self) -> Token | None:
        t = self.peek()
        self.i += 1
        return t

    def inside(self) -> Token:
        """The next token where the brackets' check guarantees one: inside
        a '(' or '[', the closing one at least follows."""
        return cast(Token, self.peek())

    def end_pos(self) -> int:
        return len(self.text.rstrip())

    def expect(self, kind: str, what: str) -> Token:
        t = self.peek()
        if t is None or t.kind != kind:
            pos = t.pos if t else self.end_pos()
            found = f"'{t.text}'" if t else "the end of the spec"
            raise SpecError(f"expected {what}, found {found}", pos, len(t.text) if t else 1)
        self.take()
        return t

    def parse(self) -> Spec:
        if not self.tokens:
            raise SpecError("empty spec: write the layers from the OS layer to the "
                            "socket, e.g. mmap_heap::segfit_lk::malloc_socket", 0)
        layers = [self.layer()]
        while (t := self.peek()) is not None:
            if t.kind != "sep":
                raise SpecError(f"expected '::' between layers, found '{t.text}'",
                                t.pos, len(t.text))
            self.take()
            layers.append(self.layer())
        return Spec(self.text, layers, self.warnings)

    def layer(self) -> LayerRef:
        t = self.peek()
        if t is None or t.kind != "name":
            pos = t.pos if t else self.end_pos()
            raise SpecError("expected a layer name" + (" after '::'" if self.i else ""),
                            pos, len(t.text) if t else 1)
        self.take()
        args = []
        end = t.end
        nxt = self.peek()
        if nxt is not None and nxt.kind == "(":
            self.take()
            if self.inside().kind != ")":
                args.append(self.arg())
                while self.inside().kind == ",":
                    self.take()
                    args.append(self.arg())
            end = self.expect(")", "',' or ')' in the slot list").end
        return LayerRef(t.value, t.pos, args, end)

    def arg(self) -> Arg:
        t = self.expect("name", "a slot name")
        if self.inside().kind != "=":
            return Arg(t.value, t.pos, None)
        self.take()
        nxt = self.inside()
        if nxt.kind == "[":
            self.take()
            lo = self.scalar()
            self.expect(",", "',' between the bounds of a range [lo, hi]")
            hi = self.scalar()
            close = self.expect("]", "']' after the range's upper bound")
            v = Value("range", nxt.pos, close.end, self.text[nxt.pos:close.end],
                      items=(lo, hi))
        else:
            v = self.scalar()
        return Arg(t.value, t.pos, v)

    def scalar(self) -> Value:
        t = self.peek()
        if t is not None and t.kind == "number":
            self.take()
            n, unit = number_value(t)
            return Value("number", t.pos, t.end, t.text, number=n, unit=unit)
        if t is not None and t.kind == "name":
            self.take()
            return Value("name", t.pos, t.end, t.text, name=t.value)
        pos = t.pos if t else self.end_pos()
        found = f"'{t.text}'" if t else "the end of the spec"
        raise SpecError(f"expected a value (a number, a size such as 64KB, SIZE_MAX "
                        f"or a name), found {found}", pos)


def parse(text: str) -> Spec:
    return Parser(text).parse()


def format_size(n: int) -> str:
    """Bytes for humans: SIZE_MAX, 64 KiB, 2 MiB, 100."""
    if n == SIZE_MAX:
        return "SIZE_MAX"
    for shift, unit in ((40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")):
        if n and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return str(n)
