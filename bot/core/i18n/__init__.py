"""Translations: one function, `t(key, lang, **kwargs)`, for every user-facing string.

Catalogues are gettext `.po` files, one per language, at
`bot/core/i18n/locales/<lang>/LC_MESSAGES/messages.po` with `<lang>` in gettext spelling (`zh_Hans`,
`zh_Hant`, `en`). Message ids are dotted keys such as `btn.join`; a message string may contain
`str.format` placeholders such as `{n}`. Catalogues are read once, at import, with Babel.
Words follow `GLOSSARY.md`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from gettext import c2py
from pathlib import Path

from babel.messages.pofile import read_po

LANGUAGES = ("zh-Hans", "zh-Hant", "en")
#: Language names, written in their own language whatever the reader's language.
LANGUAGE_NAMES = {"zh-Hans": "简体中文", "zh-Hant": "繁體中文", "en": "English"}
FALLBACK_LANGUAGE = "en"
LOCALES_DIR = Path(__file__).parent / "locales"

_TRADITIONAL_REGIONS = ("tw", "hk", "mo")


def catalogue_path(lang: str) -> Path:
    """Path of the `.po` file for `lang` (one of `LANGUAGES`)."""
    return LOCALES_DIR / lang.replace("-", "_") / "LC_MESSAGES" / "messages.po"


def _load(lang: str) -> tuple[dict[str, str], dict[str, tuple[str, ...]], Callable[[int], int]]:
    with catalogue_path(lang).open("rb") as po_file:
        catalog = read_po(po_file, locale=lang.replace("-", "_"))
    single: dict[str, str] = {}
    plural: dict[str, tuple[str, ...]] = {}
    for message in catalog:
        if not message.id or not message.string or message.fuzzy:
            continue
        if isinstance(message.id, tuple):  # msgid_plural: one string per plural form
            forms = tuple(str(form) for form in message.string)
            if all(forms):
                plural[str(message.id[0])] = forms
                single[str(message.id[0])] = forms[-1]
        else:
            single[str(message.id)] = str(message.string)
    return single, plural, c2py(catalog.plural_expr)


_LOADED = {lang: _load(lang) for lang in LANGUAGES}
#: Per language, message id → text (for a plural message: its last form).
CATALOGUES: dict[str, dict[str, str]] = {lang: _LOADED[lang][0] for lang in LANGUAGES}
#: Per language, plural message id → its forms in the catalogue's order (gettext plural forms).
PLURALS: dict[str, dict[str, tuple[str, ...]]] = {lang: _LOADED[lang][1] for lang in LANGUAGES}
_PLURAL_INDEX: dict[str, Callable[[int], int]] = {lang: _LOADED[lang][2] for lang in LANGUAGES}


def match_language(code: str | None) -> str | None:
    """Map a language tag to one of `LANGUAGES`, or None if we have no catalogue for it.

    Accepts our own codes in any case and Telegram's `language_code` values (IETF tags):
    `zh`, `zh-hans`, `zh-cn`, `zh-sg` → zh-Hans; `zh-hant`, `zh-tw`, `zh-hk`, `zh-mo` → zh-Hant;
    `en`, `en-US`, ... → en. `_` is accepted for `-`.

    >>> match_language("zh-TW"), match_language("en-GB"), match_language("de")
    ('zh-Hant', 'en', None)
    """
    if not code:
        return None
    parts = code.strip().lower().replace("_", "-").split("-")
    if parts[0] == "en":
        return "en"
    if parts[0] != "zh":
        return None
    if "hant" in parts[1:] or any(region in parts[1:] for region in _TRADITIONAL_REGIONS):
        return "zh-Hant"
    return "zh-Hans"


def normalize_language(code: str | None, default: str = FALLBACK_LANGUAGE) -> str:
    """Like `match_language`, but falls back to `default` (itself one of `LANGUAGES`).

    >>> normalize_language("zh-hk"), normalize_language(None), normalize_language("fr", "zh-Hans")
    ('zh-Hant', 'en', 'zh-Hans')
    """
    return match_language(code) or default


def t(key: str, lang: str, **kwargs: object) -> str:
    """The text for message id `key` in `lang`, with `{placeholders}` filled from `kwargs`.

    `lang` may be any tag `normalize_language` understands. Looks the key up in `lang`, then in
    English; a key missing everywhere comes back as the key itself, so a gap shows but never
    crashes a handler.

    Raises:
        KeyError: the message has a placeholder missing from `kwargs` (a programming error).

    A plural message (``msgid_plural``, gettext plural forms) takes its form from the integer
    ``n`` (by its absolute value, so English says ``-1 point`` and ``-2 points``).

    >>> t("btn.join", "zh-Hans"), t("alarm", "en", n=2)
    ('加入', '2 cards left!')
    """
    lang = normalize_language(lang)
    if key not in CATALOGUES[lang]:
        lang = FALLBACK_LANGUAGE
    text = CATALOGUES[lang].get(key)
    if text is None:
        return key
    forms = PLURALS[lang].get(key)
    count = kwargs.get("n")
    if forms is not None and isinstance(count, int):
        index = _PLURAL_INDEX[lang](abs(count))
        text = forms[min(index, len(forms) - 1)]
    return text.format(**kwargs)


def join_names(names: Iterable[str], lang: str) -> str:
    """Names (or any words) listed in one line the way `lang` lists them: ``甲、乙`` in Chinese,
    ``Ann, Bob`` in English (catalogue key ``list.sep``).

    >>> join_names(["甲", "乙"], "zh-Hant"), join_names(["Ann", "Bob"], "en")
    ('甲、乙', 'Ann, Bob')
    """
    return t("list.sep", lang).join(names)
