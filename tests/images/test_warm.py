"""Start-up warm-up (issue 9, CPU per deal): after :func:`images.warm.warm_up` the deals'
pictures draw no card sprite again."""

from __future__ import annotations

from images import render_hand, render_table
from images.fan import card_sprite
from images.warm import warm_up
from tests.images import scenes


def test_after_the_warm_up_pictures_find_every_card_sprite_cached():
    warm_up()
    before = card_sprite.cache_info().misses
    render_hand(scenes.HAND_20, scenes.HAND_20_SELECTED)
    render_hand(tuple(range(1, 54, 3)))
    render_table(scenes.TABLE_3, fmt="PNG")
    render_table(scenes.TABLE_STRAIGHT, fmt="PNG")
    assert card_sprite.cache_info().misses == before
