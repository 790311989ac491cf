"""Suit symbols and the joker star as vector shapes (polygons and ellipses), not font glyphs.

Each shape is drawn four times larger and scaled down, which gives smooth edges; the masks are
cached, so a shape is drawn once per size.
"""

from __future__ import annotations

import math
from functools import lru_cache

from PIL import Image, ImageDraw

SS = 4  # supersampling factor

Point = tuple[float, float]


def _heart(n: int = 72) -> list[Point]:
    """The classic parametric heart, point down, scaled to the unit square."""
    pts = []
    for i in range(n):
        t = 2 * math.pi * i / n
        x = 16 * math.sin(t) ** 3
        y = 13 * math.cos(t) - 5 * math.cos(2 * t) - 2 * math.cos(3 * t) - math.cos(4 * t)
        pts.append((x, -y))
    xs = [p[0] for p in pts]
    ys = [p[1] for p in pts]
    w, h = max(xs) - min(xs), max(ys) - min(ys)
    return [((x - min(xs)) / w, (y - min(ys)) / h) for x, y in pts]


def _scaled(pts: list[Point], s: float, x0: float = 0, y0: float = 0, sx: float = 1,
            sy: float = 1) -> list[Point]:
    return [(x0 + x * sx * s, y0 + y * sy * s) for x, y in pts]


def _draw_suit(d: ImageDraw.ImageDraw, suit: str, s: int) -> None:
    if suit == "hearts":
        d.polygon(_scaled(_heart(), s, 0, s * 0.04, 1, 0.92), fill=255)
    elif suit == "diamonds":
        pts: list[Point] = []
        corners = [(0.5, 0.0), (0.88, 0.5), (0.5, 1.0), (0.12, 0.5)]
        for i in range(4):
            (ax, ay), (bx, by) = corners[i], corners[(i + 1) % 4]
            for k in range(8):  # slightly concave sides
                f = k / 8
                bow = 0.05 * math.sin(math.pi * f)
                pts.append((ax + (bx - ax) * f + bow * (0.5 - ax - (bx - ax) * f) * 2,
                            ay + (by - ay) * f + bow * (0.5 - ay - (by - ay) * f) * 2))
        d.polygon(_scaled(pts, s), fill=255)
    elif suit == "spades":
        heart = [(x, 1 - y) for x, y in _heart()]
        d.polygon(_scaled(heart, s, 0, 0, 1, 0.78), fill=255)
        d.polygon([(s * 0.5, s * 0.55), (s * 0.28, s), (s * 0.72, s)], fill=255)
    elif suit == "clubs":
        r = s * 0.235
        for cx, cy in ((0.5, 0.25), (0.25, 0.55), (0.75, 0.55)):
            d.ellipse((cx * s - r, cy * s - r, cx * s + r, cy * s + r), fill=255)
        d.polygon([(s * 0.5, s * 0.3), (s * 0.36, s * 0.6), (s * 0.64, s * 0.6)], fill=255)
        d.polygon([(s * 0.5, s * 0.45), (s * 0.28, s), (s * 0.72, s)], fill=255)
    else:
        raise ValueError(f"unknown suit {suit!r}")


@lru_cache(maxsize=64)
def suit_mask(suit: str, size: int) -> Image.Image:
    """An ``L`` mask ``size`` × ``size`` of a suit symbol (``engine.cards.SUITS`` names)."""
    big = Image.new("L", (size * SS, size * SS), 0)
    _draw_suit(ImageDraw.Draw(big), suit, size * SS)
    return big.reduce(SS)


def star_points(cx: float, cy: float, r: float, inner: float = 0.45, n: int = 5) -> list[Point]:
    """Corners of an ``n``-pointed star centred at ``(cx, cy)`` with outer radius ``r``."""
    pts = []
    for i in range(2 * n):
        rr = r if i % 2 == 0 else r * inner
        a = -math.pi / 2 + math.pi * i / n
        pts.append((cx + rr * math.cos(a), cy + rr * math.sin(a)))
    return pts
