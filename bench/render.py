"""Benchmark the pictures: ``python bench/render.py [--n 200] [--seed 7]``.

Prints the vendored CJK fonts' and court/joker pictures' install size, then renders ``n``
random hands and tables (and results and leaderboards) from a fixed seed and prints, per picture
and format, the median and p95 milliseconds and the median and largest size in bytes. Tables,
results and boards carry new random names each (Chinese, Latin, emoji, long), in zh-Hans,
zh-Hant and English in turn, so their text is laid out afresh as in a new deal; the words of the
catalogues repeat, as they do in the bot. Targets (issue 4): hand <= 15 ms median, table <= 25
ms median, every picture < 150 KB. Card faces and fonts are loaded once per process and cached;
that one-off cost is measured first, on its own line, so that the figures after it are the
steady state.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

from bot.presentation.scenes import picture_labels
from engine.cards import shuffled_deck
from images import (
    Labels,
    LeaderboardRow,
    LeaderboardScene,
    ResultScene,
    ResultSeat,
    SeatScene,
    TableScene,
    badge,
    render_hand,
    render_leaderboard,
    render_result,
    render_table,
)
from images.cards import ART_DIR
from images.text import FONT_DIR, FONT_FILES, text_width

Job = Callable[[], bytes]
LANGS = ("zh-Hans", "zh-Hant", "en")
#: Common hanzi (simplified and traditional) that names are made of.
HANZI = ("王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐韩曹"
         "許鄭謝羅陳楊黃趙劉張小明华丽雷梅伟芳娜静敏强磊军洋勇艳杰娟涛超秀霞")
LATIN = ("Ada", "Bob", "Lovelace", "Maximilian", "Zoë", "Li", "Wang", "Alexander", "Nana")
EMOJI = ("🔥", "🎉", "🐉", "")


def random_name(rng: random.Random) -> str:
    """A name as Telegram users have them: 2–8 hanzi, or Latin words, sometimes an emoji."""
    if rng.random() < 0.6:
        name = "".join(rng.choice(HANZI) for _ in range(rng.randint(2, 8)))
    else:
        name = " ".join(rng.choice(LATIN) for _ in range(rng.randint(1, 3)))
    return name + rng.choice(EMOJI)


def labels(rng: random.Random) -> Labels:
    return picture_labels(rng.choice(LANGS))


def random_hand(rng: random.Random) -> tuple[list[int], list[int]]:
    """A 17- or 20-card hand (RULES.md §1.3) and a selection of 0–6 of its cards."""
    hand = shuffled_deck(rng)[: rng.choice((17, 20))]
    return hand, rng.sample(hand, rng.randint(0, 6))


def random_table(rng: random.Random) -> TableScene:
    """Three seats mid-deal: plays of 1–12 cards or passes, sometimes a shown hand."""
    deck = shuffled_deck(rng)
    landlord = rng.randrange(3)
    turn = rng.randrange(3)
    seats = []
    for i in range(3):
        count = rng.randint(1, 20 if i == landlord else 17)
        play: tuple[int, ...] | str | None = rng.choice(
            [None, "pass", tuple(deck[i * 12: i * 12 + rng.randint(1, 12)])])
        shown = tuple(deck[36: 36 + count]) if rng.random() < 0.2 else None
        name = random_name(rng)
        seats.append(SeatScene(label=badge(name, f"P{i + 1}"), name=name,
                               role="landlord" if i == landlord else "farmer",
                               card_count=count, alarm=count <= 2, last_play=play,
                               shown_cards=shown, is_turn=i == turn,
                               autoplay=rng.random() < 0.2, doubled=rng.random() < 0.3))
    return TableScene(seats=tuple(seats), kitty=tuple(deck[51:54]) if rng.random() < 0.8 else None,
                      base=rng.randint(1, 3), multiplier=2 ** rng.randint(0, 6),
                      seconds_left=rng.randint(0, 30), labels=labels(rng))


def random_result(rng: random.Random) -> ResultScene:
    deck = shuffled_deck(rng)
    names = [random_name(rng) for _ in range(3)]
    seats = tuple(ResultSeat(label=badge(names[i], f"P{i + 1}"), name=names[i],
                             role="landlord" if i == 0 else "farmer", points=p, beans=p * 20,
                             cards_left=tuple(deck[i * 17: i * 17 + n]), doubled=i == 1,
                             multiplier=None if i == 0 else 8 * (2 if i == 1 else 1))
                  for i, (p, n) in enumerate(((-72, 5), (48, 0), (24, 9))))
    return ResultScene(winner="farmers", seats=seats, base=3, multiplier=16, bombs=3, rockets=1,
                       robs=rng.randint(0, 2), anti_spring=rng.random() < 0.1,
                       labels=labels(rng))


def random_board(rng: random.Random) -> LeaderboardScene:
    rows = []
    for rank in range(1, 11):
        games = rng.randint(0, 200)
        rows.append(LeaderboardRow(rank, random_name(rng), rng.randint(-500, 20000), games,
                                   rng.randint(0, games)))
    return LeaderboardScene("🏆 排行榜 Leaderboard", tuple(rows), balances=rng.random() < 0.5,
                            labels=labels(rng))


def warm_up() -> None:
    """Draw every card face the pictures use once: plain and selected hand cards, the table's
    sizes (play, shown hand, kitty), the hand palette."""
    for half in (range(27), range(27, 54)):
        render_hand(half)
        render_hand(half, half)
    seats = tuple(SeatScene("P", last_play=tuple(range(54)), shown_cards=tuple(range(54)))
                  for _ in range(3))
    render_table(TableScene(seats=seats, kitty=tuple(range(54))))
    for lang in LANGS:  # the fonts, and the catalogue's words at the sizes they are drawn
        words = picture_labels(lang)
        render_table(TableScene(seats=seats, labels=words))
        render_result(random_result(random.Random(0)))
        render_leaderboard(LeaderboardScene("Leaderboard", labels=words))


def measure(name: str, jobs: list[Job]) -> None:
    times, sizes = [], []
    for job in jobs:
        t = time.perf_counter()
        data = job()
        times.append((time.perf_counter() - t) * 1000)
        sizes.append(len(data))
    times.sort()
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    print(f"{name:<18} median {statistics.median(times):6.1f} ms   p95 {p95:6.1f} ms   "
          f"median {statistics.median(sizes) / 1024:6.1f} KB   max {max(sizes) / 1024:6.1f} KB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200, help="pictures of each kind")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    sizes = {face: (FONT_DIR / name).stat().st_size for face, name in FONT_FILES.items()}
    print(f"{'fonts installed':<18} {sum(sizes.values()) / 1024 / 1024:6.2f} MB   "
          + "   ".join(f"{FONT_FILES[face]} {size / 1024:.0f} KB" for face, size in sizes.items()))

    art = sorted(ART_DIR.glob("*.png"))
    print(f"{'cards installed':<18} {sum(p.stat().st_size for p in art) / 1024:6.0f} KB   "
          f"{len(art)} court and joker pictures (images/cards)")

    t = time.perf_counter()
    for face in FONT_FILES:
        text_width("王小明 Ada", 24, "zh-Hant" if face == "tc" else "zh-Hans")
    print(f"{'fonts loaded':<18} {(time.perf_counter() - t) * 1000:6.1f} ms (once per process)")

    t = time.perf_counter()
    warm_up()
    print(f"{'first pictures':<18} {(time.perf_counter() - t) * 1000:6.0f} ms to draw and cache "
          "every face at every size (once per process)")

    rng = random.Random(args.seed)
    hands = [random_hand(rng) for _ in range(args.n)]
    tables = [random_table(rng) for _ in range(args.n)]
    results = [random_result(rng) for _ in range(args.n // 4)]
    boards = [random_board(rng) for _ in range(args.n // 4)]
    measure("hand PNG", [lambda h=h: render_hand(*h) for h in hands])
    measure("hand JPEG", [lambda h=h: render_hand(*h, fmt="JPEG") for h in hands])
    measure("table JPEG", [lambda s=s: render_table(s) for s in tables])
    measure("table PNG", [lambda s=s: render_table(s, fmt="PNG") for s in tables])
    measure("result PNG", [lambda s=s: render_result(s) for s in results])
    measure("leaderboard PNG", [lambda b=b: render_leaderboard(b) for b in boards])


if __name__ == "__main__":
    main()
