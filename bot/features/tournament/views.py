"""What a group tournament shows (RULES.md §10.1): the group's sign-up message with its buttons,
the draw of each stage, a stage's result, the board, the final ranking with the revealed seed and
the referee's commands, and the standings under a tournament deal's result; in the group's
pictures mode the sign-up, the board and the final ranking are pictures (their scenes here,
drawn by :mod:`images.tournament`) with the texts as captions. Pure: texts in the given
language, keyboards and scenes as values; the driver sends them.

Buttons carry ``T:<tournament id>:<op>`` (at most 64 bytes): ``join`` (报名), ``quit`` (退出),
``start`` (开赛), ``cancel`` (取消), ``watch<n>`` (观战 table n of the running stage). The data
is parsed by :func:`parse_tournament_callback`, which accepts only what
:func:`tournament_callback` draws; the driver checks the rest (the tournament is live, the
presser may).
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from bot.core.i18n import join_names, t
from bot.core.numbers import grouped
from bot.features.tournament.standings import TableStandings
from bot.presentation.keyboards import Button, Keyboard
from bot.presentation.scenes import picture_labels
from engine.prizes import split_pool
from engine.tournament import (
    Advancement,
    Chips,
    Draw,
    PlannedStage,
    TournamentError,
    TournamentPreset,
    advance,
)
from images.tournament import (
    BoardSeat,
    BoardTable,
    FinalRow,
    FinalScene,
    PrizeSlot,
    SignupScene,
    TournamentBoardScene,
)

PREFIX = "T"
OPS = ("join", "quit", "start", "cancel")
_DATA_RE = re.compile(r"T:([1-9][0-9]{0,11}):(join|quit|start|cancel|watch([1-9][0-9]{0,2}))")


class TournamentDataError(ValueError):
    """Button data this module did not draw."""


@dataclass(frozen=True, slots=True)
class TournamentPress:
    """A parsed tournament button: the tournament, the ``op`` and, for ``watch``, the table
    (1-based; 0 otherwise)."""

    tournament_id: int
    op: str
    table: int = 0


def tournament_callback(tournament_id: int, op: str, table: int = 0) -> str:
    """The data of a tournament button (``op`` one of :data:`OPS` or ``watch`` with its
    ``table``).

    >>> tournament_callback(7, "join"), tournament_callback(7, "watch", 2)
    ('T:7:join', 'T:7:watch2')
    """
    data = f"{PREFIX}:{tournament_id}:{op}{table if op == 'watch' else ''}"
    parse_tournament_callback(data)
    return data


def parse_tournament_callback(data: object) -> TournamentPress:
    """Parse and check a tournament button's data.

    >>> parse_tournament_callback("T:7:watch3")
    TournamentPress(tournament_id=7, op='watch', table=3)

    Raises:
        TournamentDataError: anything :func:`tournament_callback` does not draw.
    """
    if not isinstance(data, str) or len(data.encode()) > 64:
        raise TournamentDataError("not tournament button data")
    match = _DATA_RE.fullmatch(data)
    if match is None:
        raise TournamentDataError("not tournament button data")
    op = match.group(2)
    if match.group(3) is not None:
        return TournamentPress(int(match.group(1)), "watch", int(match.group(3)))
    return TournamentPress(int(match.group(1)), op)


def stage_name(number: int, final: bool, lang: str) -> str:
    """初赛 / 复赛 / 第N轮 / 决赛 (GLOSSARY.md: Round N / Final)."""
    if final:
        return t("tour.stage_final", lang)
    return t("tour.stage_n", lang, n=number)


def stage_line(planned: PlannedStage, lang: str) -> str:
    """One stage of the plan: its name, field, tables and byes, format, start, time limit
    (RULES.md §10.1 "Time") and who goes through."""
    stage = planned.stage
    fmt = stage.format
    if isinstance(fmt, Chips):
        how = t("tour.format_chips", lang, chips=fmt.chips, base=fmt.chip_base,
                out=fmt.threshold)
        if fmt.rise_every:
            how += t("tour.format_rise", lang, n=fmt.rise_every)
    else:
        how = t("tour.format_fixed", lang, n=fmt.deals)
    if stage.start.kind == "base":
        how += t("tour.start_base", lang, base=stage.start.base)
    elif stage.start.kind == "carry_over":
        how += t("tour.start_carry", lang, share=stage.start.share, cap=stage.start.cap)
    if stage.time_limit:
        how += t("tour.time_part", lang, n=stage.time_limit)
    name = stage_name(planned.number, planned.is_final, lang)
    if planned.is_final:
        return t("tour.line_final", lang, stage=name, field=planned.field, how=how)
    rule = stage.advance
    assert rule is not None
    through = t(f"tour.advance_{rule.kind}", lang, n=rule.count)
    byes = t("tour.byes_part", lang, n=planned.byes) if planned.byes else ""
    return t("tour.line_stage", lang, stage=name, field=planned.field, tables=planned.tables,
             byes=byes, how=how, through=through, next=planned.advancing)


def signup_text(tournament_id: int, preset: TournamentPreset, plan: Sequence[PlannedStage],
                fee: int, seed_hash: str, start: str, names: Sequence[str], minimum: int,
                maximum: int, lang: str, *, closed: str | None = None) -> str:
    """The group's sign-up message (RULES.md §10.1): format and stages (``plan``, for the
    field signed up so far or the minimum), fee and prize table, the start, the committed
    seed's SHA-256 and the members signed up; ``closed``: a last line once sign-up is over."""
    lines = [t("tour.title", lang, id=tournament_id,
               preset=t(f"tour.preset_{preset.name}", lang))]
    lines += [stage_line(p, lang) for p in plan]
    prizes = "/".join(str(p) for p in preset.prize_table)
    lines.append(t("tour.fee", lang, fee=grouped(fee), prizes=prizes) if fee
                 else t("tour.fee_free", lang, prizes=prizes))
    lines.append(start)
    lines.append(t("tour.seed", lang, hash=seed_hash))
    lines.append("")
    if names:
        lines.append(t("tour.signed", lang, n=len(names), max=maximum, min=minimum,
                       names=join_names(names, lang)))
    else:
        lines.append(t("tour.signed_none", lang, max=maximum, min=minimum))
    if closed:
        lines += ["", closed]
    return "\n".join(lines)


def signup_markup(tournament_id: int, lang: str) -> Keyboard:
    """报名 / 退出, then 开赛 / 取消 (the opener's and admins')."""
    def button(key: str, op: str) -> Button:
        return Button(t(key, lang),
                                    callback_data=tournament_callback(tournament_id, op))
    return Keyboard([[button("tour.btn_join", "join"), button("tour.btn_quit", "quit")],
                                 [button("tour.btn_start", "start"),
                                  button("tour.btn_cancel", "cancel")]])


def draw_text(tournament_id: int, planned: PlannedStage, tables: Sequence[Sequence[int]],
              byes: Sequence[int], names: Mapping[int, str], lang: str) -> str:
    """A stage's draw (抽签分组): its tables with their players in seat order, and the byes."""
    lines = [t("tour.draw_title", lang, id=tournament_id,
               stage=stage_name(planned.number, planned.is_final, lang))]
    for number, players in enumerate(tables, start=1):
        lines.append(t("tour.table_line", lang, n=number,
                       names=join_names((names[p] for p in players), lang)))
    if byes:
        lines.append(t("tour.byes", lang, names=join_names((names[p] for p in byes), lang)))
    return "\n".join(lines)


def stage_result_text(tournament_id: int, planned: PlannedStage, through: Sequence[int],
                      byes: Sequence[int], out: Sequence[Sequence[int]],
                      forfeited: Sequence[int], names: Mapping[int, str], lang: str) -> str:
    """A stage's result: who is through (晋级, byes marked), who is out, who left."""
    lines = [t("tour.result_title", lang, id=tournament_id,
               stage=stage_name(planned.number, planned.is_final, lang))]
    marked = [names[p] + (t("tour.bye_mark", lang) if p in byes else "") for p in through]
    lines.append(t("tour.through", lang, names=join_names(marked, lang)))
    gone = [names[p] for group in out for p in group]
    if gone:
        lines.append(t("tour.out", lang, names=join_names(gone, lang)))
    if forfeited:
        lines.append(t("tour.forfeited", lang,
                       names=join_names((names[p] for p in forfeited), lang)))
    return "\n".join(lines)


def standings_lines(standings: TableStandings, names: Mapping[int, str], lang: str) -> list[str]:
    """A table's standings, best first: name, score (points or chips), deals won, and a mark
    for a player who left, and in a four-player stage for one who lost three deals as landlord
    and may only pass in the biddings (RULES.md §11)."""
    scores = standings.scores()
    order = sorted(range(len(standings.players)), key=lambda i: (standings.forfeited[i],
                                                                  -scores[i], i))
    key = "tour.score_chips" if standings.chips else "tour.score_points"
    barred = standings.barred() if len(standings.players) == 4 else ()
    lines = []
    for i in order:
        line = t(key, lang, name=names.get(standings.players[i], "?"), score=scores[i],
                 wins=standings.wins[i])
        if standings.forfeited[i]:
            line += t("tour.left_mark", lang)
        elif barred and barred[i]:
            line += t("tour.barred_mark", lang)
        lines.append(line)
    return lines


def table_standings_text(tournament_id: int, planned: PlannedStage, number: int,
                         standings: TableStandings, names: Mapping[int, str], lang: str) -> str:
    """Under a tournament deal's result: the table's standings after it."""
    head = t("tour.table_standings", lang, id=tournament_id, n=number,
             stage=stage_name(planned.number, planned.is_final, lang), deals=standings.played)
    return "\n".join([head, *standings_lines(standings, names, lang)])


def board_text(tournament_id: int, planned: PlannedStage,
               tables: Sequence[tuple[int, TableStandings, bool]], byes: Sequence[int],
               names: Mapping[int, str], lang: str) -> str:
    """The group's board: the stage, each table's players with scores and deals played, which
    tables have finished, the byes."""
    lines = [t("tour.board_title", lang, id=tournament_id,
               stage=stage_name(planned.number, planned.is_final, lang))]
    for number, standings, done in tables:
        state = t("tour.board_done", lang) if done else t("tour.board_playing", lang)
        lines.append("")
        lines.append(t("tour.board_table", lang, n=number, deals=standings.played, state=state))
        lines += ["  " + line for line in standings_lines(standings, names, lang)]
    if byes:
        lines += ["", t("tour.byes", lang, names=join_names((names[p] for p in byes), lang))]
    return "\n".join(lines)


def board_markup(tournament_id: int, running: Sequence[int], lang: str
                 ) -> Keyboard | None:
    """观战 buttons, one per running table (at most 8 a row)."""
    buttons = [Button(t("tour.btn_watch", lang, n=n),
                                    callback_data=tournament_callback(tournament_id, "watch", n))
               for n in running]
    if not buttons:
        return None
    return Keyboard([buttons[i:i + 4] for i in range(0, len(buttons), 4)])


def referee_commands(seed: str, stages: Sequence[Mapping[str, object]]) -> list[str]:
    """One referee command per stage (``{"op": "tournament_draw"}``, docs/judge.md) that
    reproduces its draw from the revealed seed: ``stages`` hold each stage's ``number``,
    ``players`` (its field) and ``scores`` (previous-stage scores per player, ``None`` for
    none; absent at the first stage)."""
    commands = []
    for stage in stages:
        request: dict[str, object] = {"op": "tournament_draw", "seed": seed,
                                      "players": stage["players"], "stage": stage["number"]}
        if stage.get("scores") is not None:
            request["scores"] = stage["scores"]
        if stage.get("table_size", 3) != 3:
            request["table_size"] = stage["table_size"]
        commands.append(f"echo '{json.dumps(request)}' | python -m engine.judge")
    return commands


def final_text(tournament_id: int, places: Sequence[tuple[int, int | None]],
               scores: Mapping[int, int], paid: Mapping[int, int], names: Mapping[int, str],
               seed: str, seed_hash: str, commands: Sequence[str], lang: str) -> str:
    """The final ranking (champion first, prizes paid), the revealed seed and the referee's
    commands that reproduce every draw."""
    return "\n".join([*final_ranking_lines(tournament_id, places, scores, paid, names, lang),
                      "", *seed_lines(seed, seed_hash, commands, lang)])


def seed_lines(seed: str, seed_hash: str, commands: Sequence[str], lang: str) -> list[str]:
    """The revealed seed (with the SHA-256 shown at sign-up) and the referee's commands."""
    return [t("tour.seed_reveal", lang, seed=seed, hash=seed_hash), *commands]


def final_ranking_lines(tournament_id: int, places: Sequence[tuple[int, int | None]],
                        scores: Mapping[int, int], paid: Mapping[int, int],
                        names: Mapping[int, str], lang: str) -> list[str]:
    """The final ranking's title and one line per member: place, name, score, prize."""
    lines = [t("tour.final_title", lang, id=tournament_id)]
    for player, place in places:
        prize = t("tour.prize_part", lang, beans=grouped(paid[player])) if paid.get(player) \
            else ""
        if place is None:
            lines.append(t("tour.place_left", lang, name=names[player]))
            continue
        score = scores.get(player)
        lines.append(t("tour.place_line", lang, place=place, name=names[player],
                       score="" if score is None else t("tour.score_part", lang, score=score),
                       prize=prize) + (" 👑" if place == 1 else ""))
    return lines


# --- The pictures (in the group's pictures mode) ---------------------------------------------

#: Telegram's longest photo caption, in characters: a longer message text is replaced by a
#: shorter caption (the picture carries the rest).
CAPTION_LIMIT = 1024


def caption(text: str, short: str) -> str:
    """``text`` as a picture's caption, or ``short`` when it is longer than Telegram takes
    (:data:`CAPTION_LIMIT`; ``short`` cut to it too)."""
    if len(text) <= CAPTION_LIMIT:
        return text
    return short if len(short) <= CAPTION_LIMIT else short[:CAPTION_LIMIT - 1] + "…"


def short_hash(digest: str) -> str:
    """A SHA-256 shortened for a picture: its first and last 12 hex digits.

    >>> short_hash("0123456789abcdef" * 4)
    '0123456789ab…456789abcdef'
    """
    return digest if len(digest) <= 25 else f"{digest[:12]}…{digest[-12:]}"


def signup_scene(tournament_id: int, preset: TournamentPreset, plan: Sequence[PlannedStage],
                 fee: int, seed_hash: str, start: str, names: Sequence[str], minimum: int,
                 maximum: int, lang: str, *, closed: bool = False) -> SignupScene:
    """The sign-up message's picture (:func:`images.tournament.render_tournament_signup`): what
    :func:`signup_text` says, with the prize table's places and the beans each pays with the
    field signed up so far (RULES.md §10.1: the fees are the pool, :func:`engine.prizes.
    split_pool`), the SHA-256 shortened and the members numbered in sign-up order; ``closed``:
    the sign-up is over (its mark drawn)."""
    words = picture_labels(lang)
    table = preset.prize_table
    held = min(len(names), len(table))
    amounts = split_pool(fee * len(names), list(range(1, held + 1)), table) \
        if fee and held else []
    prizes = tuple(PrizeSlot(place, share, amounts[place - 1] if place <= len(amounts) else None)
                   for place, share in enumerate(table, start=1))
    return SignupScene(
        title=t("tour.title", lang, id=tournament_id, preset=t(f"tour.preset_{preset.name}", lang)),
        stages=tuple(stage_line(p, lang) for p in plan),
        fee=t("tour.pic_fee", lang, fee=grouped(fee)) if fee else t("tour.pic_free", lang),
        prizes=prizes, start=start, seed=t("tour.seed", lang, hash=short_hash(seed_hash)),
        signed=t("tour.pic_signed", lang, n=len(names), max=maximum, min=minimum),
        members=tuple(names), prizes_head=words.prize,
        prize_beans=t("tour.pic_prize_beans", lang, beans="{beans}"),
        none=t("tour.pic_none", lang), more=t("tour.pic_more", lang, n="{n}"),
        mark=t("tour.pic_closed", lang) if closed else "", lang=words.lang)


def board_through(planned: PlannedStage, drawn: Draw[int], standings: Sequence[TableStandings],
                  signup: Sequence[int], previous: Mapping[int, int] | None) -> set[int]:
    """Who goes through the stage as the scores stand now (RULES.md §10.1,
    :func:`engine.tournament.advance` on the tables' results so far), byes left out; none in the
    final, or while a tie at the line would need extra deals."""
    if planned.is_final or len(standings) != len(drawn.tables):
        return set()
    try:
        outcome = advance(planned, drawn, [s.result(signup) for s in standings], signup,
                          previous)
    except TournamentError:
        return set()
    if not isinstance(outcome, Advancement):
        return set()
    return set(outcome.through) - set(drawn.byes)


def board_scene(tournament_id: int, planned: PlannedStage,
                tables: Sequence[tuple[int, TableStandings, bool]], byes: Sequence[int],
                names: Mapping[int, str], lang: str, *, through: Collection[int] = (),
                status: str = "running") -> TournamentBoardScene:
    """The group's board as a picture (:func:`images.tournament.render_tournament_board`): what
    :func:`board_text` says, each table's players best first with their score and deals won,
    who goes through as the scores stand (``through``, :func:`board_through`; marked "through"
    once every table has finished), who left; ``status``: the tournament's (``finished`` and
    ``cancelled`` are marked)."""
    words = picture_labels(lang)
    decided = all(done for _, _, done in tables)
    tag = t("tour.pic_through" if decided else "tour.pic_qualifying", lang)
    drawn = []
    for number, standings, done in tables:
        scores = standings.scores()
        order = sorted(range(len(standings.players)), key=lambda i: (standings.forfeited[i],
                                                                      -scores[i], i))
        unit = "tour.pic_chips" if standings.chips else "tour.pic_points"
        seats = tuple(BoardSeat(
            names.get(standings.players[i], "?"), t(unit, lang, score=scores[i]),
            t("tour.pic_wins", lang, wins=standings.wins[i]),
            words.left if standings.forfeited[i]
            else tag if standings.players[i] in through else "",
            out=standings.forfeited[i]) for i in order)
        state = t("tour.board_done", lang) if done else t("tour.board_playing", lang)
        drawn.append(BoardTable(t("tour.board_table", lang, n=number, deals=standings.played,
                                  state=state), seats, done))
    marks = {"finished": t("tour.pic_over", lang), "cancelled": words.cancelled}
    return TournamentBoardScene(
        title=t("tour.board_title", lang, id=tournament_id,
                stage=stage_name(planned.number, planned.is_final, lang)),
        tables=tuple(drawn),
        byes=t("tour.byes", lang, names=join_names((names[p] for p in byes), lang))
        if byes else "",
        note=t("tour.pic_qualifying_note", lang) if through and not decided else "",
        mark=marks.get(status, ""), lang=words.lang)


def final_scene(tournament_id: int, places: Sequence[tuple[int, int | None]],
                scores: Mapping[int, int], paid: Mapping[int, int], names: Mapping[int, str],
                seed: str, seed_hash: str, lang: str) -> FinalScene:
    """The final ranking as a picture (:func:`images.tournament.render_tournament_final`): the
    champion crowned, every member's place, final score and prize in beans (``places`` best
    first as :func:`final_text` lists them), the revealed seed and its SHA-256."""
    words = picture_labels(lang)
    rows = tuple(FinalRow(place, names.get(player, "?"),
                          "" if scores.get(player) is None else str(scores[player]),
                          paid.get(player, 0))
                 for player, place in places)
    return FinalScene(t("tour.pic_final_title", lang, id=tournament_id), rows,
                      t("tour.pic_champion", lang), t("tour.pic_seed", lang, seed=seed),
                      t("tour.pic_hash", lang, hash=seed_hash), words,
                      t("tour.pic_prize_beans", lang, beans="+{beans}"))
