"""Drawing helpers shared by every picture: colours, text, tags, badges, felt, encoding.

Words and names are drawn in the vendored CJK fonts (:mod:`images.text`); the ranks in card
corners in the font Pillow ships.
"""

from __future__ import annotations

import io
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFilter, ImageFont

from images import text as _text
from images.errors import RenderError

RGB = tuple[int, int, int]

FELT = (28, 112, 66)
FLOOR = (16, 58, 38)
TABLE_RIM = (104, 62, 34)
WHITE = (255, 255, 255)
INK = (28, 28, 32)
RED = (208, 22, 38)
GOLD = (246, 196, 64)
ALARM = (236, 48, 48)
MUTED = (196, 224, 204)
PANEL = (10, 48, 28)
HIGHLIGHT = (255, 214, 74)
FARMER = (86, 156, 222)

FORMATS = ("PNG", "JPEG")


@lru_cache(maxsize=32)
def card_font(size: int) -> ImageFont.FreeTypeFont:
    """Pillow's bundled font at ``size`` pixels, for the ranks in card corners (cached)."""
    return ImageFont.load_default(size=size)  # type: ignore[return-value]


def draw_text(
    canvas: Image.Image,
    xy: tuple[float, float],
    text: str,
    size: int,
    fill: RGB,
    *,
    anchor: str = "la",
    lang: str = "en",
    max_width: int | None = None,
) -> int:
    """Draw ``text`` at ``xy`` (Pillow anchor, e.g. ``"mm"`` centred) in the fonts of ``lang``;
    with ``max_width``, at a smaller size if it would be wider. Returns the width drawn."""
    if max_width is not None:
        size = _text.fit_size(text, size, max_width, lang)
    mask, dx, dy = _text.text_mask(text, size, anchor, lang)
    canvas.paste(fill, (round(xy[0]) + dx, round(xy[1]) + dy), mask)
    return _text.text_width(text, size, lang)


@lru_cache(maxsize=256)
def glyph_mask(text: str, height: int, max_width: int) -> Image.Image:
    """A bold ``L`` mask of ``text`` whose ink is ``height`` px tall and at most ``max_width`` wide.

    Characters are set tight (so ``10`` fits a card corner) and squeezed horizontally when
    still too wide. Rendered large and scaled down for smooth edges (cached).
    """
    big = height * 3
    size = round(big * 1.45)
    parts = []
    for ch in text:
        im = Image.new("L", (size * 2, size * 2), 0)
        ImageDraw.Draw(im).text((size // 2, size // 2), ch, font=card_font(size), fill=255,
                                stroke_width=max(1, size // 14), stroke_fill=255)
        box = im.getbbox()
        if box is None:
            raise RenderError(f"cannot draw {ch!r}")
        parts.append((im, box))
    top = min(box[1] for _, box in parts)
    bottom = max(box[3] for _, box in parts)
    gap = big // 12
    width = sum(box[2] - box[0] for _, box in parts) + gap * (len(parts) - 1)
    out = Image.new("L", (width, bottom - top), 0)
    x = 0
    for im, box in parts:
        out.paste(im.crop((box[0], top, box[2], bottom)), (x, 0))
        x += box[2] - box[0] + gap
    w = min(max_width, max(1, round(out.width * height / out.height)))
    return out.resize((w, height), Image.Resampling.LANCZOS)


def felt(width: int, height: int) -> Image.Image:
    """A new plain green felt background.

    Flat colours on purpose: gradients band once the picture is cut down to a 256-colour PNG.
    """
    return Image.new("RGB", (width, height), FELT)


@lru_cache(maxsize=64)
def shadow_mask(width: int, height: int, radius: int, blur: int = 4) -> Image.Image:
    """A soft ``L`` shadow of a rounded rectangle, ``blur`` px wider on each side (cached)."""
    im = Image.new("L", (width + 4 * blur, height + 4 * blur), 0)
    ImageDraw.Draw(im).rounded_rectangle((2 * blur, 2 * blur, 2 * blur + width - 1,
                                          2 * blur + height - 1), radius, fill=110)
    return im.filter(ImageFilter.GaussianBlur(blur))


def pill(
    canvas: Image.Image,
    xy: tuple[int, int],
    text: str,
    size: int,
    *,
    fill: RGB,
    color: RGB,
    anchor: str = "l",
    lang: str = "en",
) -> int:
    """Draw ``text`` on a rounded tag; ``xy`` is its left (``"l"``), centre (``"m"``) or right
    (``"r"``) edge at mid height. Returns the tag's width in pixels."""
    pad = size // 2
    w = _text.text_width(text, size, lang) + 2 * pad
    h = round(size * 1.5)
    x, y = xy
    left = {"l": x, "m": x - w // 2, "r": x - w}[anchor]
    ImageDraw.Draw(canvas).rounded_rectangle((left, y - h // 2, left + w, y + h // 2), h // 2,
                                             fill=fill)
    draw_text(canvas, (left + w / 2, y), text, size, color, anchor="mm", lang=lang)
    return w


def crown(draw: ImageDraw.ImageDraw, cx: float, bottom: float, width: float) -> None:
    """The landlord's gold crown, ``width`` px wide, centred on ``cx`` above ``bottom``."""
    a, b = width / 2, width * 0.7
    pts = [(-a, 0), (-a, -b), (-a / 2, -b * 0.45), (0, -b * 1.1), (a / 2, -b * 0.45), (a, -b),
           (a, 0)]
    draw.polygon([(cx + x, bottom + y) for x, y in pts], fill=GOLD, outline=(120, 80, 10),
                 width=max(1, round(width / 16)))


ROLE_COLORS: dict[str | None, RGB] = {
    "landlord": (226, 138, 30),
    "farmer": FARMER,
    None: (120, 134, 126),
}


def avatar(canvas: Image.Image, cx: float, cy: float, r: float, label: str,
           role: str | None, lang: str = "en") -> None:
    """A round badge with ``label`` (initials, a hanzi or a seat number), coloured by role; a
    crown on top for the landlord (RULES.md §2)."""
    draw = ImageDraw.Draw(canvas)
    draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=ROLE_COLORS[role], outline=WHITE,
                 width=max(2, round(r / 14)))
    size = round(r * (0.9 if len(label) < 3 else 0.7))
    draw_text(canvas, (cx, cy), label, size, WHITE, anchor="mm", lang=lang,
              max_width=round(r * 1.6))
    if role == "landlord":
        crown(draw, cx, cy - r * 0.82, r * 0.9)


#: A picture's own palette is taken from every 4th pixel in each direction (see :func:`encode`).
PALETTE_STEP = 4
#: A JPEG larger than this at quality 88 is saved again at :data:`JPEG_FALLBACK_QUALITY`: a
#: table with most of the deck face up (the court figures are detailed) stays under 150 KB.
JPEG_LIMIT = 150 * 1024
JPEG_FALLBACK_QUALITY = 80


def encode(im: Image.Image, fmt: str, palette: Image.Image | None = None) -> bytes:
    """``PNG`` or ``JPEG`` bytes of ``im``.

    PNG is a 256-colour palette PNG without dithering: lossless PNG costs Pillow several times
    longer, for a picture Telegram turns into a JPEG anyway. The colours come from ``palette``
    (a ``P`` image; mapping to it is quick) or, without one, from the picture itself: a fast
    octree of every :data:`PALETTE_STEP`-th pixel each way (flat colours: the sample has them
    all, the mean error is the same as the whole picture's), then the picture mapped to it —
    half the CPU of an octree of all 1280 × 720 pixels (~10 ms). zlib level 6 (a 1280 × 720
    table: 27 KB against 34 KB at level 3, for ~4 ms more). JPEG is quality 88, or 80 for the
    rare picture over :data:`JPEG_LIMIT` at 88 (a table with most of the deck face up).

    Raises:
        RenderError: an unknown format.
    """
    fmt = fmt.upper()
    buf = io.BytesIO()
    if fmt == "PNG":
        if palette is None:
            sample = im.resize((max(1, im.width // PALETTE_STEP),
                                max(1, im.height // PALETTE_STEP)), Image.Resampling.NEAREST)
            palette = sample.quantize(256, Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
            small = im.quantize(palette=palette, dither=Image.Dither.NONE)
        else:
            small = im.quantize(palette=palette, dither=Image.Dither.NONE)
        small.save(buf, "PNG", compress_level=6)
    elif fmt in ("JPEG", "JPG"):
        im.save(buf, "JPEG", quality=88, subsampling="4:2:0")
        if buf.tell() > JPEG_LIMIT:
            buf = io.BytesIO()
            im.save(buf, "JPEG", quality=JPEG_FALLBACK_QUALITY, subsampling="4:2:0")
    else:
        raise RenderError(f"format must be one of {FORMATS}, not {fmt!r}")
    return buf.getvalue()
