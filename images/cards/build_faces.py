"""Build the vendored court and joker pictures: ``python images/cards/build_faces.py``.

The pictures are Adrian Kennard's English-pattern playing cards (CC0 1.0, ``LICENSE-CC0.txt``
beside this file) as published on the npm registry in ``@letele/playing-cards`` 0.1.0, where
each card is a React component. This script takes that package's ``dist/index.esm.js``, turns
the components of the twelve court cards (J, Q, K of each suit) and the two jokers back into SVG
and renders, for every card width the pictures draw (:data:`images.warm.WIDTHS`), only their
picture:

* a court card's double-headed figure inside its blue frame, without the deck's own corner
  indices and pips (:mod:`images.cards` draws the corners), at the pixel size of
  :data:`images.cards.COURT_ART`;
* a joker's jester, the colour one (``J1``) for the big joker and the black one (``J2``) for the
  small joker, at the pixel size of :data:`images.cards.JOKER_ART`.

Each is written as ``<card>-<width>.png`` (``KH-160.png``, ``joker_big-64.png``), quantized to
a small palette (the art has a handful of flat colours) so that the pictures stay small. Re-run
it when a card width changes; ``tests/images/test_cards.py`` fails until then.

The package comes from ``npm pack @letele/playing-cards@0.1.0`` (needs ``npm``), or
``--package`` takes the unpacked package folder or its ``.tgz``. Renders with ``cairosvg`` (the
``dev`` extra; it needs the system's Cairo library, Debian's ``libcairo2``).
"""

from __future__ import annotations

import argparse
import io
import re
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from images.cards import art_name, art_size  # noqa: E402
from images.warm import WIDTHS  # noqa: E402

PACKAGE = "@letele/playing-cards@0.1.0"
#: Component name in the package → card code of the file names.
SUITS = {"S": "S", "H": "H", "C": "C", "D": "D"}
COURTS = [(f"Svg{s}{r}", f"{r}{s}") for s in "SHCD" for r in "JQK"]
JOKERS = [("SvgJ1", "joker_big"), ("SvgJ2", "joker_small")]
#: The deck's frame of a court card and a joker's picture, in its card's coordinates
#: (the card is ``-120 -168 240 336``).
COURT_VIEW = (-82.4, -130.4, 164.8, 260.8)
JOKER_VIEW = (-101.4, -156.0, 202.8, 312.0)
#: Colours kept per picture: the art is flat (gold, red, blue, black, white) plus edges.
COLOURS = 48
#: JSX attribute names → SVG ones.
RENAME = {"className": "class", "xlinkHref": "xlink:href", "xmlnsXlink": "xmlns:xlink"}


@dataclass
class Node:
    """One ``React.createElement(tag, props, *children)`` call."""

    tag: str
    props: dict[str, str] = field(default_factory=dict)
    children: list[Node] = field(default_factory=list)


class Parser:
    """Reads the ``React.createElement`` calls of one component (the subset that SVGR emits:
    string, number and identifier values; ``_extends({...}, props)``; ``title ? … : null``)."""

    TOKEN = re.compile(r'\s*(?:("(?:[^"\\]|\\.)*")|(-?[\d.]+(?:e-?\d+)?)|([A-Za-z_$][\w$.]*)'
                       r'|(.))', re.S)

    def __init__(self, text: str) -> None:
        text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
        # the optional <title>: nothing to draw
        text = re.sub(r'title \? React\.createElement\("title", \{\s*id: titleId\s*\}, title\)'
                      r" : null,", "", text)
        self.tokens = [m.group(0).strip() for m in self.TOKEN.finditer(text)
                       if m.group(0).strip()]
        self.pos = 0

    def next(self) -> str:
        self.pos += 1
        return self.tokens[self.pos - 1]

    def expect(self, token: str) -> None:
        got = self.next()
        if got != token:
            raise ValueError(f"expected {token!r}, got {got!r} at token {self.pos}")

    def element(self) -> Node:
        self.expect("React.createElement")
        self.expect("(")
        node = Node(self.string())
        self.expect(",")
        node.props = self.props()
        while self.next() == ",":
            node.children.append(self.element())
        return node

    def string(self) -> str:
        token = self.next()
        if not token.startswith('"'):
            raise ValueError(f"expected a string, got {token!r}")
        return str(token[1:-1])

    def props(self) -> dict[str, str]:
        token = self.tokens[self.pos]
        if token == "null":
            self.pos += 1
            return {}
        if token == "_extends":
            self.next()
            self.expect("(")
            props = self.object()
            self.expect(",")
            self.expect("props")
            self.expect(")")
            return props
        return self.object()

    def object(self) -> dict[str, str]:
        self.expect("{")
        props: dict[str, str] = {}
        while self.tokens[self.pos] != "}":
            key = self.next().strip('"')
            self.expect(":")
            value = self.next()
            if value == "-":  # a negative number split from its sign
                value += self.next()
            if not value.startswith("titleId"):
                props[RENAME.get(key, _kebab(key))] = value.strip('"')
            if self.tokens[self.pos] == ",":
                self.pos += 1
        self.expect("}")
        return props


def _kebab(name: str) -> str:
    """``strokeLinecap`` → ``stroke-linecap`` (``aria-…`` and ``viewBox`` stay)."""
    if name in ("viewBox", "preserveAspectRatio") or "-" in name:
        return name
    return re.sub(r"[A-Z]", lambda m: "-" + m.group(0).lower(), name)


def component(source: str, name: str) -> Node:
    """The SVG tree of component ``name`` (``SvgHK``) of the package's ``index.esm.js``."""
    start = source.index(f"const {name} = ")
    end = source.index("\n};", start)
    body = source[start:end]
    return Parser(body[body.index("return ") + len("return "):]).element()


def inline(node: Node, symbols: dict[str, Node]) -> Iterator[str]:
    """``node`` as SVG text, each ``<use>`` of a ``<symbol>`` replaced by a nested ``<svg>``
    with the symbol's ``viewBox`` (cairosvg does not scale a used symbol to its width and
    height)."""
    if node.tag == "use":
        ref = node.props.get("xlink:href", "").lstrip("#")
        if ref in symbols:
            symbol = symbols[ref]
            box: dict[str, str] = {k: node.props[k] for k in ("x", "y", "width", "height")
                                   if k in node.props}
            style = {k: v for k, v in node.props.items()
                     if k not in ("x", "y", "width", "height", "xlink:href", "transform")}
            keep: dict[str, str] = {k: symbol.props[k] for k in ("viewBox", "preserveAspectRatio")
                    if k in symbol.props}
            yield f"<g{_attrs({'transform': node.props.get('transform', ''), **style})}>"
            yield f"<svg{_attrs({**box, **keep, 'overflow': 'visible'})}>"
            for child in symbol.children:
                yield from inline(child, symbols)
            yield "</svg></g>"
            return
    if node.tag in ("symbol", "defs"):
        return
    yield f"<{node.tag}{_attrs(node.props)}"
    if not node.children:
        yield "/>"
        return
    yield ">"
    for child in node.children:
        yield from inline(child, symbols)
    yield f"</{node.tag}>"


def _attrs(props: dict[str, str]) -> str:
    return "".join(f' {k}="{v}"' for k, v in props.items() if v != "")


def collect(node: Node, into: dict[str, Node]) -> dict[str, Node]:
    """Every element with an ``id`` under ``node`` (symbols and shared paths), by id."""
    if "id" in node.props:
        into[node.props["id"]] = node
    for child in node.children:
        collect(child, into)
    return into


def picture_svg(tree: Node, view: tuple[float, float, float, float], joker: bool) -> str:
    """The card's picture alone, ``view`` (``x, y, width, height`` in the card's coordinates)
    filling the SVG: a court card's figure and frame (the uses as large as the frame, and the
    frame's outline), a joker's whole drawing; not the card's outline nor its corners."""
    ids = collect(tree, {})
    symbols = {k: n for k, n in ids.items() if n.tag == "symbol"}
    shared = {k: n for k, n in ids.items() if n.tag != "symbol"}  # the frame's path
    parts: list[str] = []
    for child in tree.children:
        if child.tag != "use":
            continue
        ref = child.props.get("xlink:href", "").lstrip("#")
        width = float(child.props.get("width", "0") or 0)
        if ref in shared:  # the frame's outline
            path = Node("path", {**shared[ref].props, **{k: v for k, v in child.props.items()
                                                       if k != "xlink:href"}})
            path.props.pop("id", None)
            parts.extend(inline(path, symbols))
        elif joker or abs(width - view[2]) < 0.5:
            parts.extend(inline(child, symbols))
    x, y, w, h = view
    pad = 1.5  # the frame's stroke, half outside the box
    return ('<svg xmlns="http://www.w3.org/2000/svg" '
            f'viewBox="{x - pad} {y - pad} {w + 2 * pad} {h + 2 * pad}" '
            f'width="{w + 2 * pad}" height="{h + 2 * pad}">' + "".join(parts) + "</svg>")


def render(svg: str, size: tuple[int, int]) -> Image.Image:
    """``svg`` rendered to an ``RGBA`` image of ``size`` pixels, quantized to :data:`COLOURS`."""
    import cairosvg  # the dev extra: only this script needs it

    png = cairosvg.svg2png(bytestring=svg.encode(), output_width=size[0],
                           output_height=size[1])
    im = Image.open(io.BytesIO(png)).convert("RGBA")
    return im.quantize(COLOURS, Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)


def package_source(path: Path | None) -> str:
    """The text of ``dist/index.esm.js`` from ``path`` (a folder or ``.tgz``) or ``npm pack``."""
    if path is not None and path.is_dir():
        return (path / "dist" / "index.esm.js").read_text()
    with tempfile.TemporaryDirectory() as tmp:
        if path is None:
            name = subprocess.run(["npm", "pack", PACKAGE, "--silent"], cwd=tmp, check=True,
                                  capture_output=True, text=True).stdout.strip().splitlines()[-1]
            path = Path(tmp) / name
        with tarfile.open(path) as tar:
            member = tar.extractfile("package/dist/index.esm.js")
            assert member is not None
            return member.read().decode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--package", type=Path, help="the unpacked package folder or its .tgz")
    args = parser.parse_args()
    source = package_source(args.package)
    for old in HERE.glob("*.png"):
        old.unlink()
    total = 0
    for name, code in COURTS + JOKERS:
        joker = code.startswith("joker")
        svg = picture_svg(component(source, name), JOKER_VIEW if joker else COURT_VIEW, joker)
        for width in WIDTHS:
            out = HERE / art_name(code, width)
            render(svg, art_size(code, width)).save(out, optimize=True)
            total += out.stat().st_size
    print(f"wrote {len(COURTS + JOKERS) * len(WIDTHS)} pictures, {total / 1024:.0f} KB")


if __name__ == "__main__":
    main()
