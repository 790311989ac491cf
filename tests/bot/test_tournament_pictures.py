"""Group tournaments' pictures in the bot (RULES.md §10.1): the scenes of the sign-up, the board
and the final ranking built from the tournament's state (the prize table's beans for the field
so far, who goes through as the scores stand, the champion), the captions cut to what Telegram
takes, and a tournament table's watchers kept with the table's stored dict."""

from __future__ import annotations

import io
import json
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

from PIL import Image

from bot.core.i18n import t
from bot.core.table import Competition, Seat, Table
from bot.features.tournament.final import Final
from bot.features.tournament.standings import TableStandings
from bot.features.tournament.views import (
    CAPTION_LIMIT,
    board_scene,
    board_through,
    caption,
    final_scene,
    short_hash,
    signup_scene,
)
from bot.store.tournament_records import TournamentRecord
from engine.challenge import seed_hash
from engine.tournament import QUICK, Draw, plan

LANG = "en"
SEED = "00112233445566778899aabbccddeeff"
NAMES = {1: "Ann", 2: "Bob", 3: "Cy", 4: "韩梅梅"}


def test_a_caption_too_long_for_telegram_is_replaced_by_the_short_one():
    assert caption("a" * CAPTION_LIMIT, "short") == "a" * CAPTION_LIMIT
    assert caption("a" * (CAPTION_LIMIT + 1), "short") == "short"
    cut = caption("a" * (CAPTION_LIMIT + 1), "b" * 2000)
    assert len(cut) == CAPTION_LIMIT and cut.endswith("…")


def test_the_signup_scene_shows_what_each_place_pays_with_the_field_so_far():
    digest = seed_hash(SEED)
    scene = signup_scene(7, QUICK, plan(QUICK, 4), 100, digest, "now", list(NAMES.values()), 3,
                         30, LANG)
    # four fees of 100 are a pool of 400: 50/30/20
    assert [(p.place, p.share, p.beans) for p in scene.prizes] == \
        [(1, 50, 200), (2, 30, 120), (3, 20, 80)]
    assert scene.members == ("Ann", "Bob", "Cy", "韩梅梅") and scene.mark == ""
    assert short_hash(digest) in scene.seed and digest not in scene.seed
    assert scene.signed == t("tour.pic_signed", LANG, n=4, max=30, min=3)
    assert len(scene.stages) == len(plan(QUICK, 4))
    # two signed up: the third place is not held yet, its share goes to first
    two = signup_scene(7, QUICK, plan(QUICK, 3), 100, digest, "now", ["Ann", "Bob"], 3, 30, LANG)
    assert [p.beans for p in two.prizes] == [140, 60, None]
    free = signup_scene(7, QUICK, plan(QUICK, 3), 0, digest, "now", ["Ann"], 3, 30, LANG,
                        closed=True)
    assert [p.beans for p in free.prizes] == [None, None, None]
    assert free.fee == t("tour.pic_free", LANG) and free.mark == t("tour.pic_closed", LANG)


def _stage_one(points: list[list[int]]) -> tuple[TableStandings, Draw[int]]:
    """Four members of ``quick``: one table (1, 2, 3) and the bye 4, with these deals."""
    stage = plan(QUICK, 4)[0]
    table = TableStandings.new(stage, [1, 2, 3], [0, 0, 0], 0.0)
    for deal, row in enumerate(points, start=1):
        table = table.record(deal, row)
    return table, Draw(1, ((1, 2, 3),), (4,))


def test_who_goes_through_as_the_scores_stand():
    stage = plan(QUICK, 4)[0]
    table, drawn = _stage_one([[4, -2, -2], [2, 1, -3]])
    # the top of the table and the best runner-up join the bye (the bye is not tagged)
    assert board_through(stage, drawn, [table], [1, 2, 3, 4], None) == {1, 2}
    tied, _ = _stage_one([[4, -2, -2]])
    assert board_through(stage, drawn, [tied], [1, 2, 3, 4], None) == set()  # a tie: not yet
    final = plan(QUICK, 4)[-1]
    assert board_through(final, drawn, [table], [1, 2, 3, 4], None) == set()


def test_the_board_scene_tags_who_goes_through_and_who_left():
    stage = plan(QUICK, 4)[0]
    table, drawn = _stage_one([[4, -2, -2], [2, 1, -3]])
    playing = board_scene(7, stage, [(1, table, False)], drawn.byes, NAMES, LANG,
                          through={1, 2})
    (shown,) = playing.tables
    assert [(s.name, s.score, s.tag) for s in shown.seats] == [
        ("Ann", t("tour.pic_points", LANG, score=6), t("tour.pic_qualifying", LANG)),
        ("Bob", t("tour.pic_points", LANG, score=-1), t("tour.pic_qualifying", LANG)),
        ("Cy", t("tour.pic_points", LANG, score=-5), "")]
    assert playing.note == t("tour.pic_qualifying_note", LANG) and not shown.done
    assert playing.byes == t("tour.byes", LANG, names="韩梅梅") and playing.mark == ""
    done = board_scene(7, stage, [(1, table, True)], drawn.byes, NAMES, LANG, through={1, 2},
                       status="finished")
    assert done.tables[0].seats[0].tag == t("tour.pic_through", LANG) and done.note == ""
    assert done.mark == t("tour.pic_over", LANG)
    left = table.record(3, [0, 0, 0], left=[0])
    gone = board_scene(7, stage, [(1, left, False)], drawn.byes, NAMES, LANG)
    assert gone.tables[0].seats[-1].name == "Ann" and gone.tables[0].seats[-1].out


def test_the_final_scene_crowns_the_first_place_and_reveals_the_seed():
    places = [(4, 1), (1, 2), (2, 3), (3, None)]
    scene = final_scene(7, places, {4: 12, 1: 3, 2: -15}, {4: 200, 1: 120, 2: 80}, NAMES,
                        SEED, seed_hash(SEED), "zh-Hans")
    assert [(r.place, r.name, r.score, r.prize) for r in scene.rows] == [
        (1, "韩梅梅", "12", 200), (2, "Ann", "3", 120), (3, "Bob", "-15", 80),
        (None, "Cy", "", 0)]
    assert SEED in scene.seed and seed_hash(SEED) in scene.seed_hash
    assert scene.champion == "冠军" and scene.labels.lang == "zh-Hans"


def test_a_tournament_tables_watchers_are_stored_with_it():
    table = Table(-100, None, LANG, competition=Competition(
        tournament={"id": 7, "stage": 1, "number": 1, "deal": 1}))
    table.seats = [Seat(1, "Ann"), Seat(2, "Bob"), Seat(3, "Cy")]
    table.messages.watchers = {9: (None, False), 10: (55, True)}
    again = Table.from_dict(json.loads(json.dumps(table.to_dict())))
    assert again.messages.watchers == {9: (None, False), 10: (55, True)}
    older = table.to_dict()
    del older["watchers"]  # stored before watching was kept: nobody watches
    assert Table.from_dict(older).messages.watchers == {}


def _record(pictures: bool, field: int) -> TournamentRecord:
    """A finished tournament of ``field`` members, placed in sign-up order, the first three
    paid 50/30/20 beans per member."""
    players = list(range(1000001, 1000001 + field))
    state = {"signup": players, "names": {str(p): f"Player {p}" for p in players},
             "stages": [{"number": n, "players": players[:field // n], "scores": None,
                         "table_size": 3} for n in (1, 2, 3)]}
    result = {"places": {str(p): i + 1 for i, p in enumerate(players)},
              "scores": {str(p): 0 for p in players},
              "paid": {str(players[0]): 50 * field, str(players[1]): 30 * field,
                       str(players[2]): 20 * field}}
    return TournamentRecord(7, -100, None, players[0], "quick",
                            {"lang": LANG, "pictures": pictures}, SEED, seed_hash(SEED), 100,
                            100 * field, "finished", 1, 2, state, result,
                            datetime(2026, 1, 1, tzinfo=UTC), None)


def test_the_final_ranking_is_a_picture_and_the_seed_follows_when_the_caption_is_too_long():
    final = Final.__new__(Final)  # only the drawings: no context needed
    for field, pictures in ((4, True), (30, True), (30, False)):
        record = _record(pictures, field)
        drawings = final._final_drawings(record)
        text = "\n".join(d.text for _, d in drawings)
        assert text.startswith(t("tour.final_title", LANG, id=7)) and SEED in text
        assert text.count("python -m engine.judge") == 3  # the referee's commands, whole
        assert all(len(d.text) <= CAPTION_LIMIT for _, d in drawings if d.is_photo)
        assert [d.is_photo for _, d in drawings] == \
            ([False] if not pictures else [True] if field == 4 else [True, False])
        if pictures:
            assert drawings[0][1].render is not None and drawings[0][1].filename.endswith(".png")
            image = Image.open(io.BytesIO(drawings[0][1].render()))
            assert image.width == 1280 and image.height > 64 * field  # every member a row


class _Posts:
    """The outlet's ``post`` as a list: key, drawing, ``sent`` callback, claim."""

    def __init__(self) -> None:
        self.posts: list[tuple[str, Any, Any, Any]] = []

    def post(self, key: str, chat_id: int, drawing: Any, thread_id: int | None = None, *,
             sent: Any = None, claim: Any = None) -> None:
        self.posts.append((key, drawing, sent, claim))


class _Announced:
    """The store's side of a final ranking's posting: marked posted."""

    def __init__(self) -> None:
        self.announced: list[int] = []

    async def announce_tournament(self, tournament_id: int) -> None:
        self.announced.append(tournament_id)


async def test_a_final_ranking_whose_seed_follows_its_picture_is_posted_once_the_seed_went():
    """The picture is the claimed post; the seed is posted once the picture was sent, and the
    ranking counts as posted (no one posts it again) only once the seed was sent too."""
    outlet, store = _Posts(), _Announced()
    final = Final.__new__(Final)  # the outlet and the store only
    final.ctx = SimpleNamespace(outlet=outlet, store=store)  # type: ignore[assignment]
    final._announce(_record(True, 30))
    ((key, picture, sent, claim),) = outlet.posts
    assert key == "t7:tournament#final" and picture.render is not None and claim is not None
    await sent(501)  # the picture went: the seed follows, the ranking not marked yet
    assert store.announced == [] and len(outlet.posts) == 2
    seed_key, seed, seed_sent, seed_claim = outlet.posts[1]
    assert seed_key == "t7:tournament#seed" and SEED in seed.text and seed.render is None
    assert seed_claim is None  # under the picture's claim, which still runs
    await seed_sent(502)
    assert store.announced == [7]


async def test_a_final_ranking_in_one_message_is_marked_posted_once_it_went():
    outlet, store = _Posts(), _Announced()
    final = Final.__new__(Final)  # the outlet and the store only
    final.ctx = SimpleNamespace(outlet=outlet, store=store)  # type: ignore[assignment]
    final._announce(_record(True, 4))
    ((key, picture, sent, claim),) = outlet.posts
    assert SEED in picture.text and picture.render is not None and claim is not None
    await sent(501)
    assert store.announced == [7] and len(outlet.posts) == 1
